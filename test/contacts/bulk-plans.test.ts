import { describe, expect, it } from 'vitest';
import { shardOf } from '../support/db';
import { makeWorkspace } from '../support/harness';
import { expectBoundedPlans, type Ran, recordingEnv } from '../support/plans';
import { deliver } from '../support/send-queue';
import { callWith, heldEnv, upload } from './bulk-helpers';

/** Runs the held messages against a recording env until none is left. */
async function drainRecorded(rec: ReturnType<typeof recordingEnv>, waiting: any[]) {
  while (waiting.length) await deliver(rec.env, rec.sent, waiting.splice(0, 10));
}

describe('bulk contact plans', () => {
  it('reads holders, walks export pages and advances imports by key, never by scanning the workspace', async () => {
    const ws = await makeWorkspace({}, { pipeline: false, bulk: true });
    const held = heldEnv();
    const lines = [
      'email,phone,name,tags,custom_fields.tier',
      ...Array.from({ length: 300 }, (_, i) => `plan${i}@example.com,,P ${i},t${i % 4},${i % 3}`),
    ];
    const ran: Ran[] = [];
    const rec = recordingEnv(ran);
    await upload(held.env, ws, lines.join('\n'));
    await drainRecorded(rec, held.sent.splice(0));
    // A second pass updates what the first created: the holders are found by the batch read.
    await upload(held.env, ws, lines.join('\n'));
    await drainRecorded(rec, held.sent.splice(0));
    const exported = await callWith(
      held.env,
      ws,
      'POST',
      '/v1/contact-exports',
      JSON.stringify({ filter: { lifecycle_stage: null } }),
      'application/json',
    );
    expect(exported.status).toBe(201);
    await drainRecorded(rec, held.sent.splice(0));
    await drainRecorded(rec, rec.sent.splice(0));
    expect((await callWith(held.env, ws, 'GET', `/v1/contact-exports/${exported.body.id}`)).body.status).toBe('completed');
    const shard = await shardOf(ws.id);
    // A contact's labels are aggregated in their own order (a sort of that contact's links, at most 200): checked apart below.
    const explained = await expectBoundedPlans(shard, ran, /contact_list_generations|event_outbox|sqlite_|contact_custom_values|json_group_array/);
    expect(explained).toBeGreaterThan(5);
    const plan = async (pattern: RegExp) => {
      const { sql, params } = ran.find((r) => pattern.test(r.sql))!;
      return (
        await shard
          .prepare(`EXPLAIN QUERY PLAN ${sql}`)
          .bind(...params)
          .all<{ detail: string }>()
      ).results.map((r) => r.detail);
    };
    const page = await plan(/AS tag_names/);
    expect(page.filter((d) => /^SCAN c\b/.test(d))).toEqual([]);
    expect(page).toContainEqual(expect.stringMatching(/^SEARCH c USING (COVERING )?INDEX contacts_workspace_/));
    // The two sorts are the label aggregates' own; the walk itself comes in index order.
    expect(page.filter((d) => d === 'USE TEMP B-TREE FOR ORDER BY')).toHaveLength(2);
    const holders = await plan(/held_value/);
    expect(holders.filter((d) => /^SCAN (c|contacts|contact_identifiers)\b/.test(d))).toEqual([]);
  });
});
