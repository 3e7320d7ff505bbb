import { uuidText } from '../../platform/ids';
import { isUuid } from '../../platform/validation';

const base64url = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');

/**
 * The pay-link token: the workspace id's 16 bytes (so the public page finds
 * the workspace's database without a global index) and 24 random bytes (what
 * makes it unguessable), base64url: 54 characters.
 */
export function mintToken(workspaceId: string): string {
  const bytes = new Uint8Array(40);
  const hex = workspaceId.replace(/-/g, '');
  for (let i = 0; i < 16; i++) bytes[i] = parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  crypto.getRandomValues(bytes.subarray(16));
  return base64url(bytes);
}

/** The workspace id a token names, or null for anything that is not a token. */
export function tokenWorkspace(token: string): string | null {
  if (!/^[A-Za-z0-9_-]{54}$/.test(token)) return null;
  const bin = atob(`${token.replace(/-/g, '+').replace(/_/g, '/')}==`);
  const id = uuidText(Uint8Array.from(bin.slice(0, 16), (ch) => ch.charCodeAt(0)));
  return isUuid(id) ? id : null;
}

export const payUrlFor = (baseUrl: string, token: string) => `${baseUrl.replace(/\/+$/, '')}/pay/${token}`;
