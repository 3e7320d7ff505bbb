import { describe, expect, it } from 'vitest';
import { scoreContacts } from '../../src/modules/scoring/recompute';
import { type ConfigRow, configOf, readConfig } from '../../src/modules/scoring/store';
import { runBatch } from '../../src/platform/d1/db';
import { findShard, shardDb } from '../../src/platform/d1/shards';
import { callWith } from '../contacts/bulk-helpers';
import { shardOf } from '../support/db';
import { expectBoundedPlans, type Ran, recordingEnv } from '../support/plans';
import { freshEmail, ok, scoringWorkspace } from './support';

describe('lead scoring plans', () => {
  it('a scoring pass and the score answer find contacts and signals by key, never by walking the workspace', async () => {
    const ws = await scoringWorkspace([
      { signal: 'deal.won', points: 40 },
      { field: 'lifecycle_stage', equals: 'customer', points: 30 },
    ]);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await ok(ws, 'POST', '/v1/contacts', { email: freshEmail(), lifecycle_stage: 'customer' })).id);
    const ran: Ran[] = [];
    const rec = recordingEnv(ran);
    const db = shardDb(rec.env, (await findShard(rec.env, ws.id))!);
    const [rows] = (await runBatch(db, [readConfig(db, ws.id)])) as [ConfigRow[]];
    expect(await scoreContacts(db, ws.id, configOf(rows[0])!, ids)).toBe(ids.length);
    expect((await callWith(rec.env, ws, 'GET', `/v1/contacts/${ids[0]}/score`)).status).toBe(200);
    expect(await expectBoundedPlans(await shardOf(ws.id), ran, /scoring_configs|sqlite_/)).toBeGreaterThan(3);
  });
});
