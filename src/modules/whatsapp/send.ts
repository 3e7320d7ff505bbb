import type { ServiceContext } from '../../platform/context';
import { nowIso, type Statement } from '../../platform/d1/db';
import { runOperation } from '../../platform/d1/operation';
import { uuidv7 } from '../../platform/ids';
import { toE164 } from '../../platform/phone';
import { outcomeOf, type TemplateMessage, type WhatsAppProvider } from '../../providers/whatsapp';
import { identityTaken, type ContactRow, planUpsert } from '../contacts';
import { composeTemplateMessage } from './compose';
import type { TemplateSendInput } from './dto';
import { insertMessage, selectConversationOf, settleOutbound, upsertConversation } from './inbox';
import { selectTemplate, templateFrom, type Template } from './templates';
import { WhatsAppErrors } from './errors';

/** Why a contact may not receive WhatsApp messages right now, or null when it may. */
export function recipientRefusal(row: Pick<ContactRow, 'block_state' | 'whatsapp_consent_state'>) {
  if (row.block_state !== 'none') return WhatsAppErrors.recipientBlocked();
  if (row.whatsapp_consent_state === 'unsubscribed') return WhatsAppErrors.recipientUnsubscribed();
  return null;
}

export const assertApproved = (template: Template) => {
  if (template.status !== 'approved') throw WhatsAppErrors.templateNotApproved({ status: template.status });
};

/**
 * POST /v1/templates/{id}/send: the recipient is matched by normalized phone
 * (or created, consent implied), refused when blacklisted, blocked or
 * unsubscribed; the message is written to the contact's conversation as
 * `pending` together with the contact (one batch), handed to the provider, and
 * settled `sent` with its wamid, or `failed` (502 with the provider's message).
 */
export async function sendTemplate(ctx: ServiceContext, provider: WhatsAppProvider, templateId: string, input: TemplateSendInput) {
  const to = toE164(input.to, ctx.ws.defaultCountry);
  if (!to) throw WhatsAppErrors.invalidRecipient();
  const prepared = await runOperation(ctx, () => ({
    reads: {
      template: selectTemplate(ctx.db, ctx.ws.id, templateId),
      contact: { ...planUpsert(ctx, { phone: to }, { source: 'api' }), lostRace: identityTaken },
    },
    decide: async (read, batch) => {
      const template = templateFrom(read.template);
      if (!template) throw WhatsAppErrors.templateNotFound();
      assertApproved(template);
      const message = composeTemplateMessage(template, to, input);
      const planned = await read.contact();
      const refusal = recipientRefusal(planned.row);
      if (refusal) throw refusal;
      const now = nowIso();
      const messageId = uuidv7();
      // A provider whose hand-off is a D1 write records the message in this batch, which then writes it `sent`.
      const handOff = provider.sendTemplateInBatch?.(message) ?? null;
      batch.join(planned).write(
        upsertConversation(ctx.db, ctx.ws.id, planned.row.id, uuidv7(), now),
        ...((handOff?.statements ?? []) as Statement[]),
        insertMessage(ctx.db, {
          id: messageId,
          workspaceId: ctx.ws.id,
          contactId: planned.row.id,
          direction: 'outbound',
          type: 'template',
          status: handOff ? 'sent' : 'pending',
          wamid: handOff?.wamid ?? null,
          templateId: template.id,
          text: message.renderedText,
          now,
        }),
      );
      return batch.answer(selectConversationOf(ctx.db, ctx.ws.id, planned.row.id), ([conversation]) => ({
        message,
        messageId,
        conversationId: conversation.id,
        wamid: handOff?.wamid ?? null,
      }));
    },
  }));
  if (prepared.wamid) return { success: true, wamid: prepared.wamid, message_id: prepared.messageId, conversation_id: prepared.conversationId };
  const outcome = await handOver(provider, prepared.message);
  await settleOutbound(ctx.db, ctx.ws.id, prepared.messageId, outcome, nowIso());
  if ('error' in outcome) throw WhatsAppErrors.providerError({ detail: outcome.error });
  return { success: true, wamid: outcome.wamid, message_id: prepared.messageId, conversation_id: prepared.conversationId };
}

/** The provider's answer as an outcome: its refusals (and only those) become `{error}`. */
const handOver = (provider: WhatsAppProvider, message: TemplateMessage) => outcomeOf(provider.sendTemplate(message));
