import { env } from 'cloudflare:workers';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { sendEmailBatch } from '../../src/modules/emails/bulk-send';
import { foldHeaderText, mailbox } from '../../src/modules/emails/header-safety';
import { sendEmail } from '../../src/modules/emails/send';
import { getWorkspace } from '../../src/modules/workspaces/service';
import { EventSink } from '../../src/platform/outbox';
import { controlDb, workspaceDb } from '../../src/platform/d1/shards';
import { rowsIn } from '../support/db';
import { admin, type TestWorkspace } from '../support/harness';
import { ADDRESS, BAD_NAMES, BAD_SUBJECTS, emailWorkspace, expectOneMailbox, outbox, send } from './support';

/** Stores a value as if it had been written before the write rules (straight into the row). */
const storeSenderName = (ws: TestWorkspace, id: string, name: string) =>
  rowsIn(ws.id, 'UPDATE sender_profiles SET from_name = ? WHERE id = ?', name, id);

async function sendContext(ws: TestWorkspace, env_: Record<string, unknown> = {}) {
  return {
    db: (await workspaceDb(env, ws.id))!,
    ws: await getWorkspace(controlDb(env), ws.id),
    events: new EventSink(),
    env: { ...env, ...env_ },
    baseUrl: 'https://api.test',
  } as never;
}

describe('header safety: the shared rule', () => {
  it('quotes a display name holding specials (with \\ before " and \\), folds control characters, keeps atom text bare', () => {
    expect(mailbox('Acme', ADDRESS)).toBe(`Acme <${ADDRESS}>`);
    expect(mailbox('Café Ünïcode', ADDRESS)).toBe(`Café Ünïcode <${ADDRESS}>`);
    expect(mailbox("O'Brien & Sons", ADDRESS)).toBe(`O'Brien & Sons <${ADDRESS}>`);
    expect(mailbox('Acme Inc.', ADDRESS)).toBe(`"Acme Inc." <${ADDRESS}>`);
    expect(mailbox('Acme "Shop"', ADDRESS)).toBe(`"Acme \\"Shop\\"" <${ADDRESS}>`);
    expect(mailbox('Back\\slash', ADDRESS)).toBe(`"Back\\\\slash" <${ADDRESS}>`);
    expect(mailbox('<evil@attacker.example>, Real', ADDRESS)).toBe(`"<evil@attacker.example>, Real" <${ADDRESS}>`);
    expect(mailbox('Real\r\nBcc: victim@example.com', ADDRESS)).toBe(`"Real Bcc: victim@example.com" <${ADDRESS}>`);
    expect(mailbox('\r\n\u0000', ADDRESS)).toBe(ADDRESS);
    expect(mailbox('', ADDRESS)).toBe(ADDRESS);
    for (const name of BAD_NAMES) expectOneMailbox(mailbox(name, ADDRESS));
    expect(foldHeaderText(' Hi\r\n\tthere\u0000\u007f\u0085! ')).toBe('Hi there !');
  });
});

describe('header safety: writes', () => {
  it('the operator sender-profile route refuses control characters and < > , @ " in from_name (400)', async () => {
    const { ws } = await emailWorkspace({}, { sender: false });
    for (const from_name of BAD_NAMES) {
      const res = await admin('POST', `/workspaces/${ws.id}/sender-profiles`, {
        from_name,
        from_email: ADDRESS,
        domain_verified: true,
        is_default: false,
      });
      expect(res.status, JSON.stringify(from_name)).toBe(400);
      expect(res.body).toMatchObject({ statusCode: 400, error: 'Bad Request' });
      const control = /\p{Cc}/u.test(from_name.trim());
      const specials = /[<>,@"]/.test(from_name);
      expect(res.body.message).toEqual([
        ...(control ? ['from_name: from_name must not contain line breaks or control characters'] : []),
        ...(specials ? ['from_name: from_name must not contain < > , @ or "'] : []),
      ]);
    }
    expect((await ws.api('GET', '/v1/sender-profiles')).body.total).toBe(0);
    const fine = await admin('POST', `/workspaces/${ws.id}/sender-profiles`, {
      from_name: "Acme (Shop) Ltd. O'Brien",
      from_email: ADDRESS,
      domain_verified: true,
      is_default: true,
    });
    expect(fine.status).toBe(201);
    await send(ws);
    expect((await outbox(ws))[0].from).toBe(`"Acme (Shop) Ltd. O'Brien" <${ADDRESS}>`);
  });

  it('POST /v1/emails refuses every control character in the subject with the same rule', async () => {
    const { ws } = await emailWorkspace();
    for (const subject of BAD_SUBJECTS) {
      const res = await send(ws, { subject });
      expect(res.status, JSON.stringify(subject)).toBe(400);
      expect(res.body.message).toEqual(['subject: subject must not contain line breaks or control characters']);
    }
  });
});

describe('header safety: at send, for values already stored', () => {
  afterEach(() => vi.restoreAllMocks());

  it('transactional sends: the outbox From names one address, whatever the stored display name', async () => {
    const { ws, sender } = await emailWorkspace();
    for (const [i, name] of BAD_NAMES.entries()) {
      await storeSenderName(ws, sender!.id, name);
      const to = `r${i}@example.com`;
      expect((await send(ws, { to })).status).toBe(201);
      const [message] = await outbox(ws, to);
      expectOneMailbox(message.from);
      expect(message.from.endsWith(`<${ADDRESS}>`)).toBe(true);
    }
    await storeSenderName(ws, sender!.id, '<evil@attacker.example>, Real\r\nBcc: victim@example.com');
    await send(ws, { to: 'exact@example.com' });
    expect((await outbox(ws, 'exact@example.com'))[0].from).toBe(`"<evil@attacker.example>, Real Bcc: victim@example.com" <${ADDRESS}>`);
  });

  it('any caller of the send path: subjects are folded onto one line in the outbox and the send record', async () => {
    const { ws } = await emailWorkspace();
    const ctx = await sendContext(ws);
    for (const [i, subject] of BAD_SUBJECTS.entries()) {
      const { record } = await sendEmail(ctx, { to: `s${i}@example.com`, message: { subject, text: 'x' }, source: 'booking' });
      const [message] = await outbox(ws, `s${i}@example.com`);
      expect(message.subject).toBe(foldHeaderText(subject));
      expect(message.subject).not.toMatch(/\p{Cc}/u);
      const [row] = await rowsIn(ws.id, 'SELECT subject FROM email_sends WHERE id = ?', record.id);
      expect(row.subject).toBe(message.subject);
    }
  });

  it('a sender whose stored address is not one plain address is never used (409 no_verified_sender)', async () => {
    const { ws, sender } = await emailWorkspace();
    await rowsIn(ws.id, 'UPDATE sender_profiles SET local_part = ? WHERE id = ?', 'a@b.example>, <evil', sender!.id);
    const res = await send(ws);
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('no_verified_sender');
    expect(await outbox(ws)).toEqual([]);
  });

  it('the Resend adapter receives a From with one address and a folded subject, one by one and in bulk', async () => {
    const { ws, sender } = await emailWorkspace();
    await storeSenderName(ws, sender!.id, '<evil@attacker.example>, Real\r\nBcc: victim@example.com');
    const seen: any[] = [];
    vi.spyOn(globalThis, 'fetch').mockImplementation(async (_: RequestInfo | URL, init: RequestInit = {}) => {
      const body = JSON.parse(init.body as string);
      seen.push(body);
      return Array.isArray(body) ? Response.json({ data: body.map((_, i) => ({ id: `m-${i}` })) }) : Response.json({ id: 'm-one' });
    });
    const ctx = await sendContext(ws, { EMAIL_PROVIDER: 'resend', RESEND_API_KEY: 're_test_key' });
    await sendEmail(ctx, { to: 'one@example.com', message: { subject: 'Hi\r\nBcc: victim@example.com\u0000', text: 'x' }, source: 'booking' });
    await sendEmailBatch(
      ctx,
      { source: 'campaign' },
      BAD_SUBJECTS.map((subject, i) => ({ ref: `c${i}`, to: `b${i}@example.com`, message: { subject, text: 'x' } })),
      () => [],
    );
    const payloads = [seen[0], ...seen[1]];
    expect(payloads).toHaveLength(1 + BAD_SUBJECTS.length);
    expect(seen[0]).toMatchObject({
      from: `"<evil@attacker.example>, Real Bcc: victim@example.com" <${ADDRESS}>`,
      subject: 'Hi Bcc: victim@example.com',
    });
    for (const p of payloads) {
      expectOneMailbox(p.from);
      expect(p.subject).not.toMatch(/\p{Cc}/u);
    }
    expect(seen[1].map((p: { subject: string }) => p.subject)).toEqual(BAD_SUBJECTS.map(foldHeaderText));
  });
});
