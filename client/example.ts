/**
 * The client end to end against a running service (`npm start` prints the key):
 *
 *   npm run example                 # the server and demo key `npm start` recorded in .state/
 *   API_URL=... API_KEY=wsk_... npm run example
 *
 * (`npm run` uses the Node 24 the project carries, which runs TypeScript as is; with a Node of
 * your own, 22.18 or newer: `API_KEY=wsk_... node client/example.ts`.)
 *
 * It starts a local webhook receiver, subscribes it to `contact.created` and
 * `contact.updated`, upserts a contact, lists contacts with a filter, and waits
 * for the signed delivery about that contact, verified with the endpoint's
 * secret; then it removes the endpoint and exits. It passes on every run: a
 * later run's contact is new (a fresh phone and email), and an update would be
 * reported as `contact.updated`. (Local receivers need
 * `ALLOW_UNSAFE_WEBHOOK_HOSTS=127.0.0.1,localhost`, which `npm start` sets.)
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWorkspaceClient, verifyWebhook, type WebhookEvent } from './index.ts';

/** What `npm start` recorded in .state/: the server's URL (`server.json`) and the demo key (`demo.json`). */
const recorded = (file: string): Record<string, string> => {
  const path = new URL(`../.state/${file}`, import.meta.url);
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
};
const baseUrl = process.env.API_URL ?? recorded('server.json').url ?? `http://127.0.0.1:${process.env.PORT ?? 8787}`;
const apiKey = process.env.API_KEY ?? recorded('demo.json').api_key;
const quit = (advice: string) => {
  console.error(advice);
  process.exit(1);
};
if (!apiKey) quit('No API key: run `npm start` first (it records the demo key), or set API_KEY to a key.');
try {
  await fetch(`${baseUrl}/v1/openapi.json`);
} catch {
  quit(`No API answers at ${baseUrl}: start it with \`npm start\` (PORT=... npm start for another port), or set API_URL.`);
}
const api = createWorkspaceClient({ baseUrl, apiKey: apiKey! });

// 1. A webhook receiver: verify the signature over the raw body before trusting anything in it.
let secret = '';
let onEvent: (event: WebhookEvent) => void = () => {};
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const event = verifyWebhook(secret, Buffer.concat(chunks).toString('utf8'), req.headers);
      res.writeHead(204).end(); // answer 2xx within 15 s; anything else is retried
      onEvent(event);
    } catch {
      res.writeHead(400).end(); // bad signature or stale timestamp
    }
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const { port } = receiver.address() as AddressInfo;

// 2. Subscribe it. `contact.created` is opt-in: it is delivered only when listed.
const endpoint = await api.POST('/v1/webhook-endpoints', {
  body: { url: `http://127.0.0.1:${port}/hooks`, events: ['contact.created', 'contact.updated'] },
});
if (!endpoint.data) throw new Error(`webhook endpoint: ${endpoint.response.status} ${JSON.stringify(endpoint.error)}`);
secret = endpoint.data.secret;
let timer: ReturnType<typeof setTimeout> | undefined;

try {
  // 3. Create (or update: contacts upsert on email and phone) a contact. A fresh phone and email
  //    each run, so the contact is new; sending one that exists would answer `duplicate: true`.
  const email = `ada+${Date.now()}@example.com`;
  const phone = `(415) 555-${String(Math.floor(Math.random() * 10_000)).padStart(4, '0')}`;
  const created = await api.POST('/v1/contacts', {
    body: { name: 'Ada Lovelace', email, phone, lifecycle_stage: 'lead' },
  });
  if (!created.data) throw new Error(`create contact: ${created.response.status} ${JSON.stringify(created.error)}`);
  const contactId = created.data.id;
  // The delivery about this contact: created when it was new, updated when the upsert found it.
  const delivered = new Promise<WebhookEvent>((resolve) => {
    onEvent = (event) => {
      if ((event.data as { contact_id?: string }).contact_id === contactId) resolve(event);
    };
  });
  // A phone without a country code is read in the workspace's default_country (US unless the operator set another).
  console.log('contact', created.data.id, created.data.phone, created.data.duplicate ? '(existing)' : '(new)');

  // 4. List with a filter: a string-encoded JSON object (see "Filter grammar" in the README).
  const leads = await api.GET('/v1/contacts', {
    params: { query: { filter: JSON.stringify({ lifecycle_stage: 'lead', email }), sort: '-created_at' } },
  });
  if (!leads.data) throw new Error(`list contacts: ${leads.response.status} ${JSON.stringify(leads.error)}`);
  console.log(
    'leads',
    leads.data.total,
    leads.data.data.map((c) => c.email),
  );

  // 5. The signed delivery of contact.created.
  const event = await Promise.race([
    delivered,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no delivery within 30 s')), 30_000))),
  ]);
  console.log('webhook', event.type, event.id, 'verified');

  // 6. The same event read back: every event of the last 30 days stays readable, as delivered.
  const stored = await api.GET('/v1/webhook-events/{id}', { params: { path: { id: event.id } } });
  console.log('event read back', stored.data?.id === event.id ? 'identical id' : `differs: ${stored.response.status}`);

  // 7. A retried POST with an Idempotency-Key runs once: the retry gets the first answer back.
  const key = `note-${Date.now()}`;
  const note = { params: { path: { id: contactId } }, body: { body: 'Called about the renewal.' }, headers: { 'Idempotency-Key': key } };
  const first = await api.POST('/v1/contacts/{id}/notes', note);
  const retry = await api.POST('/v1/contacts/{id}/notes', note);
  console.log(
    'note',
    first.data?.id,
    'retried:',
    retry.response.headers.get('Idempotent-Replayed') === 'true' && retry.data?.id === first.data?.id ? 'replayed, one note' : 'ran twice',
  );
} finally {
  clearTimeout(timer);
  await api.DELETE('/v1/webhook-endpoints/{id}', { params: { path: { id: endpoint.data.id } } });
  receiver.close();
  // Keep-alive sockets of the API client would hold the process open for a while.
  receiver.closeAllConnections();
}
