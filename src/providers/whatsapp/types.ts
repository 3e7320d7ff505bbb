import type { Statement } from '../../platform/d1/db';

/** A template message as the service hands it to a provider: recipient, template and the filled-in parameters. */
export type TemplateMessage = {
  /** E.164 (`+4915112345678`). */
  to: string;
  template: { name: string; language: string };
  /** Body parameters in placeholder order; `parameter_name` for named placeholders. */
  body: { text: string; parameter_name?: string }[];
  header?: { type: 'text'; parameters: string[] } | { type: 'media'; media_type: 'image' | 'video' | 'document'; link: string };
  buttons: { sub_type: string; index: number; parameters: ButtonParameter[] }[];
  /** The body with its placeholders filled in (what the recipient reads; kept in the inbox). */
  renderedText: string;
};

export type ButtonParameter = { type: string; text?: string; payload?: string; coupon_code?: string };

/** Content the provider refused: the API answers 502 with the provider's own message. */
export class WhatsAppProviderError extends Error {
  constructor(
    message: string,
    readonly code: number | null = null,
  ) {
    super(message);
  }
}

/** What became of one message handed to the provider: its id, or the provider's refusal. */
export type SendOutcome = { wamid: string } | { error: string };

export interface WhatsAppProvider {
  readonly name: string;
  /** Sends one template message; resolves to the provider message id (`wamid.`...), throws `WhatsAppProviderError` when refused. */
  sendTemplate(message: TemplateMessage): Promise<{ wamid: string }>;
  /**
   * The hand-off of one message as statements of the caller's own write batch, with the message id
   * they record, so the message is recorded `sent` in the transaction that writes it. Only a provider
   * whose hand-off is a D1 write offers it; null for a message it would refuse, which then takes
   * `sendTemplate` and its refusal.
   */
  sendTemplateInBatch?(message: TemplateMessage): { statements: Statement[]; wamid: string } | null;
  /** Sends a campaign chunk: one outcome per message, in order; a refusal is that message's `{error}`, anything else throws. */
  sendTemplates(messages: TemplateMessage[]): Promise<SendOutcome[]>;
}

/** A send's outcome: the provider's refusals (and only those) become `{error}`. */
export async function outcomeOf(send: Promise<{ wamid: string }>): Promise<SendOutcome> {
  try {
    return await send;
  } catch (err) {
    if (err instanceof WhatsAppProviderError) return { error: err.message };
    throw err;
  }
}

/**
 * The Cloud API request body of a template message (`POST /{version}/{phone_number_id}/messages`).
 * https://developers.facebook.com/docs/whatsapp/cloud-api/guides/send-message-templates
 */
export function graphTemplatePayload(m: TemplateMessage): Record<string, unknown> {
  const components: Record<string, unknown>[] = [];
  if (m.header?.type === 'text' && m.header.parameters.length) {
    components.push({ type: 'header', parameters: m.header.parameters.map((text) => ({ type: 'text', text })) });
  } else if (m.header?.type === 'media') {
    components.push({ type: 'header', parameters: [{ type: m.header.media_type, [m.header.media_type]: { link: m.header.link } }] });
  }
  if (m.body.length) {
    components.push({
      type: 'body',
      parameters: m.body.map((p) => ({ type: 'text', text: p.text, ...(p.parameter_name ? { parameter_name: p.parameter_name } : {}) })),
    });
  }
  for (const b of m.buttons) {
    components.push({ type: 'button', sub_type: b.sub_type, index: String(b.index), parameters: b.parameters });
  }
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: m.to.replace(/^\+/, ''),
    type: 'template',
    template: { name: m.template.name, language: { code: m.template.language }, ...(components.length ? { components } : {}) },
  };
}
