import type { Context } from 'hono';
import type { ApiError } from './errors';

/**
 * A `/v1` route whose body is a file, not JSON (a CSV import): the JSON body parser leaves it alone
 * and reads it here, bounded, so the route sees at most `limit` bytes whatever the client sends.
 */
export type FileUpload = { method: string; pattern: RegExp; limit: number; tooLarge: () => ApiError };

let uploads: readonly FileUpload[] = [];

/** Called by the composition root only. */
export function wireFileUploads(table: readonly FileUpload[]): void {
  uploads = table;
}

export const fileUploadFor = (method: string, path: string): FileUpload | null =>
  uploads.find((u) => u.method === method && u.pattern.test(path)) ?? null;

/** Requests whose body was read as a file (the `Idempotency-Key` fingerprint reads their text). */
const fileBodies = new WeakSet<Context>();
export const carriesFile = (c: Context) => fileBodies.has(c);

/**
 * Reads the body of a file upload, stopping as soon as it passes the route's limit (the stream is
 * cancelled: nothing past the limit is buffered), and hands the route a request holding those bytes.
 */
export async function takeFileBody(c: Context, upload: FileUpload): Promise<void> {
  if (Number(c.req.header('content-length') ?? '0') > upload.limit) throw upload.tooLarge();
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = c.req.raw.body?.getReader();
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > upload.limit) {
      await reader.cancel();
      throw upload.tooLarge();
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  const headers = new Headers(c.req.raw.headers);
  headers.delete('content-length');
  c.req.raw = new Request(c.req.raw.url, { method: c.req.raw.method, headers, body: bytes });
  fileBodies.add(c);
}
