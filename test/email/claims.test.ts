import { evictDurableObject, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import type { IdempotencyClaims } from '../../src/durable-objects/idempotency-claims';
import { rowsIn, shardOf } from '../support/db';
import { claims, crashedClaim, emailWorkspace, expireClaim, outbox, send } from './support';

describe('exactly-once sends: the IdempotencyClaims Durable Object', () => {
  it('lets exactly one of 10 parallel sends with one key reach the provider', async () => {
    const { ws } = await emailWorkspace();
    const key = 'parallel-key';
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => send(ws, { idempotency_key: key, subject: `Try ${i}` })));
    const created = answers.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    for (const res of answers.filter((r) => r.status !== 201)) {
      if (res.status === 200) expect(res.body).toEqual({ ...created[0].body, duplicate: true });
      else expect([res.status, res.body.error.code]).toEqual([409, 'send_in_progress']);
    }
    expect(await outbox(ws)).toHaveLength(1);
    expect(await rowsIn(ws.id, 'SELECT id FROM email_sends WHERE workspace_id = ?', ws.id)).toHaveLength(1);
    const replay = await send(ws, { idempotency_key: key });
    expect(replay.status).toBe(200);
    expect(replay.body.id).toBe(created[0].body.id);
  });

  it('recovers a claim left by a crash right after claiming, once its lease runs out', async () => {
    const { ws } = await emailWorkspace();
    const key = 'crashed-after-claim';
    expect(await crashedClaim(ws.id, key)).toMatchObject({ state: 'claimed' });

    const during = await send(ws, { idempotency_key: key });
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('send_in_progress');
    expect(await outbox(ws)).toEqual([]);

    await expireClaim(ws.id, key);
    const retry = await send(ws, { idempotency_key: key });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ status: 'sent', duplicate: true, idempotency_key: key });
    expect(await outbox(ws)).toHaveLength(1);
    const again = await send(ws, { idempotency_key: key });
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(retry.body.id);
  });

  it('completes a send whose holder crashed after the provider hand-off without delivering it twice', async () => {
    const { ws, sender } = await emailWorkspace();
    const key = 'crashed-after-handoff';
    // The crashed request claimed the key, wrote its `sending` row and handed the message over (the outbox holds it).
    await crashedClaim(ws.id, key);
    const db = await shardOf(ws.id);
    const sendId = crypto.randomUUID();
    const now = new Date().toISOString();
    await db.batch([
      db
        .prepare(`INSERT INTO email_sends (id, workspace_id, idempotency_key, source, status, "to", "from", sender_profile_id, subject, track_opens, track_clicks, created_at, updated_at)
        VALUES (?, ?, ?, 'api', 'sending', 'ada@example.com', ?, ?, 'Hello', 0, 0, ?, ?)`)
        .bind(sendId, ws.id, key, sender!.from_email, sender!.id, now, now),
      db
        .prepare(`INSERT INTO sandbox_outbox (id, workspace_id, channel, idempotency_key, "to", "from", subject, html, text, headers, created_at)
        VALUES (?, ?, 'email', ?, 'ada@example.com', 'Acme', 'Hello', '<p>x</p>', 'x', '{}', ?)`)
        .bind(crypto.randomUUID(), ws.id, `${ws.id}:${key}`, now),
    ]);
    await expireClaim(ws.id, key);
    const retry = await send(ws, { idempotency_key: key });
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ id: sendId, status: 'sent', duplicate: true });
    // The provider honoured the key: still one message.
    expect(await outbox(ws)).toHaveLength(1);
    const [row] = await rowsIn(ws.id, 'SELECT status, provider_message_id FROM email_sends WHERE id = ?', sendId);
    expect(row.status).toBe('sent');
    expect(row.provider_message_id).toBe((await outbox(ws))[0].id);
  });

  it('answers a send D1 already holds for the key as a replay, even without a claim record', async () => {
    const { ws, sender } = await emailWorkspace();
    const db = await shardOf(ws.id);
    const sendId = crypto.randomUUID();
    const now = new Date().toISOString();
    await db
      .prepare(`INSERT INTO email_sends (id, workspace_id, idempotency_key, source, status, "to", "from", sender_profile_id, subject, provider, provider_message_id, track_opens, track_clicks, created_at, updated_at)
        VALUES (?, ?, 'held-in-d1', 'api', 'sent', 'ada@example.com', ?, ?, 'Hello', 'sandbox', 'm-1', 0, 0, ?, ?)`)
      .bind(sendId, ws.id, sender!.from_email, sender!.id, now, now)
      .run();
    const res = await send(ws, { idempotency_key: 'held-in-d1' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sendId, status: 'sent', duplicate: true, provider_message_id: 'm-1' });
    expect(await outbox(ws)).toEqual([]);
  });

  it('releases the key on provider_error, so the next attempt sends', async () => {
    const { ws } = await emailWorkspace();
    const key = 'provider-refused';
    const refused = await send(ws, { to: 'someone@reject.sandbox.test', idempotency_key: key });
    expect(refused.status).toBe(502);
    expect(refused.body.error.code).toBe('provider_error');
    const retry = await send(ws, { to: 'someone@example.com', idempotency_key: key });
    expect(retry.status).toBe(201);
    expect(retry.body.duplicate).toBe(false);
    expect(await outbox(ws)).toHaveLength(1);
  });

  it('a claim holder whose lease was taken over cannot release or complete it', async () => {
    const { ws } = await emailWorkspace();
    const first = await crashedClaim(ws.id, 'takeover');
    await expireClaim(ws.id, 'takeover');
    const second = await crashedClaim(ws.id, 'takeover');
    expect(second).toMatchObject({ state: 'claimed', recovered: true });
    const stub = claims(ws.id, 'takeover');
    expect(await stub.release('takeover', (first as { token: string }).token)).toBe(false);
    expect(await stub.complete('takeover', (first as { token: string }).token, {})).toBe(false);
    expect(await stub.claim('takeover', 60_000)).toEqual({ state: 'processing' });
  });
});

describe('the claims instance: one storage statement per step', () => {
  it('claims a new key and completes it with one statement each; the answer survives eviction', async () => {
    const { ws } = await emailWorkspace();
    const key = `steps-${crypto.randomUUID()}`;
    const stub = claims(ws.id, key);
    await stub.claim(`warm-${key}`, 60_000);
    const steps = await runInDurableObject(stub, (instance: IdempotencyClaims, state: DurableObjectState) => {
      const sql = state.storage.sql;
      const exec = sql.exec.bind(sql);
      let statements = 0;
      sql.exec = ((query: string, ...bindings: unknown[]) => {
        statements++;
        return exec(query, ...bindings);
      }) as typeof sql.exec;
      const counted = <T>(step: () => T): [T, number] => {
        statements = 0;
        return [step(), statements];
      };
      const [claimed, claimStatements] = counted(() => instance.claim(key, 60_000));
      const token = (claimed as { token: string }).token;
      const [, completeStatements] = counted(() => instance.complete(key, token, { id: 'send-1' }, 'bookmark-1'));
      const [replayed, replayStatements] = counted(() => instance.claim(key, 60_000));
      return { claimed, claimStatements, completeStatements, replayed, replayStatements };
    });
    expect(steps).toMatchObject({ claimed: { state: 'claimed', recovered: false }, claimStatements: 1, completeStatements: 1, replayStatements: 2 });
    expect(steps.replayed).toEqual({ state: 'done', response: { id: 'send-1' }, bookmark: 'bookmark-1' });
    await evictDurableObject(stub);
    expect(await stub.claim(key, 60_000)).toEqual({ state: 'done', response: { id: 'send-1' }, bookmark: 'bookmark-1' });
  });
});
