import { graphTemplatePayload, outcomeOf, WhatsAppProviderError, type TemplateMessage, type WhatsAppProvider } from './types';

export const GRAPH_BASE_URL = 'https://graph.facebook.com';
export const DEFAULT_GRAPH_VERSION = 'v21.0';

export type MetaOptions = {
  accessToken: string;
  phoneNumberId: string;
  version?: string;
  baseUrl?: string;
  fetch?: typeof fetch;
};

type GraphError = { error?: { message?: string; code?: number; error_data?: { details?: string } } };

/**
 * The WhatsApp Cloud API over fetch: `POST /{version}/{phone_number_id}/messages`
 * with a bearer token. Any Graph error (a non-2xx answer with `error`) becomes
 * a `WhatsAppProviderError` carrying Meta's message and code, which the API
 * answers with 502.
 */
export function metaWhatsApp(opts: MetaOptions): WhatsAppProvider {
  const doFetch = opts.fetch ?? fetch;
  const url = `${opts.baseUrl ?? GRAPH_BASE_URL}/${opts.version ?? DEFAULT_GRAPH_VERSION}/${encodeURIComponent(opts.phoneNumberId)}/messages`;
  const provider: WhatsAppProvider = {
    name: 'meta',
    /** The Cloud API has no batch send: a chunk's messages go out as parallel requests. */
    sendTemplates: (messages) => Promise.all(messages.map((m) => outcomeOf(provider.sendTemplate(m)))),
    async sendTemplate(message: TemplateMessage) {
      let res: Response;
      try {
        res = await doFetch(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${opts.accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify(graphTemplatePayload(message)),
        });
      } catch (err) {
        throw new WhatsAppProviderError(`WhatsApp Cloud API unreachable: ${(err as Error).message}`);
      }
      const payload = (await res.json().catch(() => null)) as (GraphError & { messages?: { id?: string }[] }) | null;
      if (!res.ok || !payload || payload.error) {
        const e = payload?.error;
        const detail = e?.error_data?.details ? ` (${e.error_data.details})` : '';
        throw new WhatsAppProviderError(e?.message ? `${e.message}${detail}` : `WhatsApp Cloud API answered ${res.status}`, e?.code ?? null);
      }
      const wamid = payload.messages?.[0]?.id;
      if (!wamid) throw new WhatsAppProviderError('WhatsApp Cloud API answered without a message id');
      return { wamid };
    },
  };
  return provider;
}
