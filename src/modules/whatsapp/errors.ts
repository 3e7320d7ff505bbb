import { defineErrors } from '../../platform/errors';

/** Templates, sends, campaigns, their execution and Meta's webhook. */
export const WhatsAppErrors = defineErrors('WhatsAppErrors', {
  templateNotFound: { status: 404, message: 'Template not found' },
  templateExists: { status: 409, message: 'A template with this name and language already exists' },
  templateProblems: { status: 400, message: '{problems}', list: true, about: 'one string per malformed placeholder' },
  messageProblems: {
    status: 400,
    message: '{problems}',
    list: true,
    about: 'one string per missing or unknown variable, header or button parameter',
  },
  invalidRecipient: { status: 400, message: 'to must be a valid phone number', list: true },
  recipientBlocked: {
    status: 400,
    code: 'RECIPIENT_BLOCKED',
    message: 'The recipient is blocked in this workspace; no WhatsApp message is sent to a blocked contact',
  },
  recipientUnsubscribed: {
    status: 400,
    code: 'RECIPIENT_UNSUBSCRIBED',
    message:
      'The recipient has unsubscribed from WhatsApp messages; no template (marketing, utility or authentication) is sent to an opted-out number',
  },
  templateNotApproved: { status: 409, code: 'TEMPLATE_NOT_APPROVED', message: 'Only approved templates can be sent; this template is {status}' },
  providerError: {
    status: 502,
    code: 'WHATSAPP_PROVIDER_ERROR',
    message: '{detail}',
    about: 'the provider refused the message; its message is passed on',
  },
  campaignNotFound: { status: 404, message: 'Campaign not found' },
  campaignTemplateNotFound: { status: 400, message: 'template_id: no such template in this workspace', list: true },
  campaignProblems: { status: 400, message: '{problems}', list: true, about: 'one string per problem of the template or the variables' },
  audienceNotFound: { status: 400, code: 'AUDIENCE_NOT_FOUND', message: 'audience_id: no such audience in this workspace' },
  scheduledInPast: { status: 400, message: 'scheduled_at must be in the future', list: true },
  verificationMismatch: { status: 403, message: 'Verification token mismatch' },
  invalidSignature: { status: 401, message: 'Invalid or missing X-Hub-Signature-256' },
  bodyNotJson: { status: 400, message: 'Body is not valid JSON' },
  notExecutable: {
    status: 409,
    code: 'campaign_not_executable',
    variants: {
      byStatus: 'The campaign is {status}; only draft or scheduled campaigns can be executed',
      startedConcurrently: 'The campaign was started or changed concurrently; only draft or scheduled campaigns can be executed',
    },
  },
  campaignTemplateNotApproved: {
    status: 409,
    code: 'template_not_approved',
    message: "The campaign's template is {status}; only approved templates can be sent",
  },
});
