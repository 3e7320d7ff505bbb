/**
 * One-click unsubscribe (RFC 8058): the hosted page `/u/{token}` under
 * PUBLIC_BASE_URL and the two headers that let a mailbox provider unsubscribe
 * with one POST. A token is opaque and random, stored on what it ends: a
 * newsletter subscription (`{workspace id}.{32 hex}`) or a campaign recipient
 * (`{workspace id}.c{32 hex}`). The workspace prefix finds the shard; an
 * altered token matches nothing and answers 404.
 */
export const unsubscribeUrl = (baseUrl: string, token: string) => `${baseUrl}/u/${encodeURIComponent(token)}`;

export const unsubscribeHeaders = (url: string) => ({
  'List-Unsubscribe': `<${url}>`,
  'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
});

export type UnsubscribeKind = 'newsletter' | 'campaign' | 'automation';

/** The letter after the workspace id that says what a token ends (none: a newsletter subscription). */
const MARKS: Record<UnsubscribeKind, string> = { newsletter: '', campaign: 'c', automation: 'a' };

const random = () => crypto.randomUUID().replace(/-/g, '');

export const newUnsubscribeToken = (workspaceId: string, kind: UnsubscribeKind) => `${workspaceId}.${MARKS[kind]}${random()}`;

/** The workspace and kind a token carries, or null when it is malformed. */
export function parseUnsubscribeToken(token: string): { workspaceId: string; kind: UnsubscribeKind } | null {
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([ca]?)[0-9a-f]{32}$/.exec(token);
  return m ? { workspaceId: m[1], kind: m[2] === 'c' ? 'campaign' : m[2] === 'a' ? 'automation' : 'newsletter' } : null;
}
