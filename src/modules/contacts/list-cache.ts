import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../platform/context';
import { nowIso } from '../../platform/d1/db';
import { sha256Hex } from '../../platform/ids';
import { bound, joinBuilt, type BuiltQuery } from '../../platform/d1/prepared';
import { rawRun } from '../../platform/d1/raw-query';

/** Answers kept per workspace; the least recently computed go first. */
const CACHE_MAX = 100;

/**
 * A filtered or searched contact list's answer (exact total, page ids) computed once per
 * generation of the workspace's contact data. The generation moves with every
 * write a list could see (triggers, migration 0012), so a cached answer is the
 * answer a recount would give; an answer from an older generation is never read.
 *
 * The list stays one statement: it reads the cache row and, on a miss only,
 * computes (a `CASE` for the count, `LIMIT 0` for the page's own plan, so
 * SQLite skips the work). A miss stores its answer after the response.
 */
export class ListCache {
  /** `key`: from `keyOf`. */
  constructor(
    private readonly ctx: ServiceContext,
    readonly key: string,
  ) {}

  /**
   * Answers are keyed by the pieces that decide them (the count, the page's selection of
   * rows, their parameters): the same pieces give the same answer. The answer's projection
   * and this class's own SQL are code, the same for every key.
   */
  static keyOf(pieces: BuiltQuery[]): Promise<string> {
    return sha256Hex(JSON.stringify(pieces));
  }

  private get generationNow(): BuiltQuery {
    return bound('coalesce((SELECT generation FROM contact_list_generations WHERE workspace_id = ?), 0)', this.ctx.ws.id);
  }

  /** `WITH` entries: the workspace's generation now (`list_gen`) and the answer stored at it, if any (`list_hit`). */
  withClauses(): BuiltQuery {
    return joinBuilt(
      'list_gen AS MATERIALIZED (SELECT ',
      this.generationNow,
      ' AS n), list_hit AS MATERIALIZED (SELECT total, contact_ids FROM contact_list_cache',
      bound(' WHERE workspace_id = ? AND key = ? AND generation = (SELECT n FROM list_gen))', this.ctx.ws.id, this.key),
    );
  }

  /**
   * The statement's first row: `generation`, `cached` (the stored total, or null) and `counted`
   * (the scalar `total`, computed on a miss only).
   */
  head(total: BuiltQuery): BuiltQuery {
    return joinBuilt(
      'SELECT NULL AS id, NULL AS answer, (SELECT n FROM list_gen) AS generation, (SELECT total FROM list_hit) AS cached, CASE WHEN NOT EXISTS (SELECT 1 FROM list_hit) THEN ',
      total,
      ' END AS counted, 0 AS pos',
    );
  }

  /** True when the answer is stored: the page's own plan gets `LIMIT 0`. */
  static readonly stored = sql`EXISTS (SELECT 1 FROM list_hit)`;

  /** The stored page's rowids, then (on a miss) the page's own. */
  pageRids(computed: BuiltQuery): BuiltQuery {
    return joinBuilt(
      'SELECT x.rowid AS page_rid FROM list_hit h CROSS JOIN json_each(h.contact_ids) j CROSS JOIN contacts x',
      bound(' WHERE x.workspace_id = ? AND x.id = j.value UNION ALL SELECT * FROM (', this.ctx.ws.id),
      computed,
      ')',
    );
  }

  /** Stores a computed answer (and trims the workspace's entries); best effort, after the response. */
  async remember(generation: number, total: number, contactIds: string[]): Promise<void> {
    const { db, ws } = this.ctx;
    try {
      await db.batch([
        rawRun(
          db,
          sql`INSERT INTO contact_list_cache (workspace_id, key, generation, total, contact_ids, cached_at)
            VALUES (${ws.id}, ${this.key}, ${generation}, ${total}, ${JSON.stringify(contactIds)}, ${nowIso()})
            ON CONFLICT (workspace_id, key) DO UPDATE SET generation = excluded.generation, total = excluded.total,
              contact_ids = excluded.contact_ids, cached_at = excluded.cached_at
            WHERE excluded.generation >= contact_list_cache.generation`,
        ),
        rawRun(
          db,
          sql`DELETE FROM contact_list_cache WHERE workspace_id = ${ws.id} AND (generation < ${generation} OR key NOT IN
            (SELECT key FROM contact_list_cache WHERE workspace_id = ${ws.id} ORDER BY cached_at DESC LIMIT ${CACHE_MAX}))`,
        ),
      ]);
    } catch (err) {
      console.error('contact list answer not cached', err);
    }
  }
}
