/**
 * One-click unsubscribe (RFC 8058): the hosted page `/u/{token}` under
 * PUBLIC_BASE_URL and the two headers that let a mailbox provider unsubscribe
 * with one POST. The token is opaque (`{workspace id}.{random}`), stored on
 * the subscription it ends; the workspace prefix finds its shard.
 */
export const unsubscribeUrl = (baseUrl: string, token: string) => `${baseUrl}/u/${encodeURIComponent(token)}`;

export const unsubscribeHeaders = (url: string) => ({
  'List-Unsubscribe': `<${url}>`,
  'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
});

/** The workspace id a token carries, or null when it is malformed. */
export function tokenWorkspace(token: string): string | null {
  const m = /^([0-9a-f-]{36})\.([0-9a-f]{32})$/i.exec(token);
  return m ? m[1].toLowerCase() : null;
}
