import { runBatch, type Db } from '../../platform/d1/db';
import type { SandboxOutbox } from '../sandbox-outbox';
import { graphTemplatePayload, WhatsAppProviderError, type SendOutcome, type TemplateMessage, type WhatsAppProvider } from './types';

/** The sandbox refuses this recipient (docs/operator-api.md), so the 502 path can be reached. */
export const SANDBOX_REJECTED_RECIPIENT = '+15005550001';
/** ... and templates whose name starts with this, so a template can be made to fail too. */
export const SANDBOX_REJECTED_TEMPLATE_PREFIX = 'sandbox_reject';

/** A `wamid.`-style id: base64 of random bytes, like the ids the Cloud API hands out. */
export function sandboxWamid(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(24));
  return `wamid.${btoa(String.fromCharCode(...bytes)).replace(/=+$/, '')}`;
}

/** The sandbox's refusals, as the Cloud API words them; null when it accepts the message. */
function refusal(message: TemplateMessage): WhatsAppProviderError | null {
  if (message.to === SANDBOX_REJECTED_RECIPIENT)
    return new WhatsAppProviderError('(#131026) Message undeliverable: the sandbox rejects this recipient', 131026);
  if (message.template.name.startsWith(SANDBOX_REJECTED_TEMPLATE_PREFIX)) {
    return new WhatsAppProviderError(
      '(#132000) Number of parameters does not match the expected number of params: the sandbox rejects this template',
      132000,
    );
  }
  return null;
}

/** Records every accepted send into the operator outbox (channel `whatsapp`); nothing leaves the machine. */
export function sandboxWhatsApp(outbox: SandboxOutbox, db: Db, workspace: { id: string; whatsappPhoneNumberId: string }): WhatsAppProvider {
  const entry = (message: TemplateMessage, wamid: string) => ({
    workspaceId: workspace.id,
    channel: 'whatsapp' as const,
    to: message.to,
    from: workspace.whatsappPhoneNumberId,
    text: message.renderedText,
    body: { ...graphTemplatePayload(message), wamid },
  });
  return {
    name: 'sandbox',
    async sendTemplate(message: TemplateMessage) {
      const refused = refusal(message);
      if (refused) throw refused;
      const wamid = sandboxWamid();
      await runBatch(db, [outbox.outboxEntry(db, entry(message, wamid))]);
      return { wamid };
    },
    sendTemplateInBatch(message: TemplateMessage) {
      if (refusal(message)) return null;
      const wamid = sandboxWamid();
      return { statements: [outbox.outboxEntry(db, entry(message, wamid))], wamid };
    },
    /** A chunk's accepted messages are recorded in one statement. */
    async sendTemplates(messages: TemplateMessage[]) {
      const outcomes: SendOutcome[] = messages.map((m) => {
        const refused = refusal(m);
        return refused ? { error: refused.message } : { wamid: sandboxWamid() };
      });
      const accepted = messages.flatMap((m, i) => {
        const outcome = outcomes[i];
        return 'wamid' in outcome ? [entry(m, outcome.wamid)] : [];
      });
      if (accepted.length) await outbox.recordOutboxEntries(db, accepted);
      return outcomes;
    },
  };
}
