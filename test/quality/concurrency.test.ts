import { describe, expect, it } from 'vitest';
import { rowsIn } from '../support/db';
import { makeWorkspace, shardFor, type ApiResponse, type TestWorkspace } from '../support/harness';
import { readBackPaths } from '../support/read-back';
import { seedAll } from '../support/resources';
import { mutates, resourceKeys, ROUTES, takesBody, type RouteCase } from '../support/routes';

/**
 * Ten parallel calls on one record, for every mutating route of the route
 * table: each answers a 2xx or a 4xx (a lost race re-reads or answers the
 * documented error, never a 5xx), and what they leave behind reads back and keeps
 * the workspace's invariants.
 */
const PARALLEL = 10;

/** An invariant's query, on the shard of the workspace it checks (`?1`). */
const rows = (sql: string, workspaceId: string) => rowsIn(workspaceId, sql, workspaceId);

/** Invariants no interleaving of writes may break, checked over the whole workspace. */
const INVARIANTS: { name: string; violations: (workspaceId: string) => Promise<unknown[]> }[] = [
  {
    name: 'newsletter issue numbers are distinct and run from start_issue_number to the counter, published issues only',
    violations: (ws) =>
      rows(
        `SELECT n.id FROM newsletters n WHERE n.workspace_id = ?1 AND (
           (SELECT count(*) FROM newsletter_issues i WHERE i.newsletter_id = n.id AND i.issue_number IS NOT NULL) <> n.next_issue_number - n.start_issue_number
           OR EXISTS (SELECT 1 FROM newsletter_issues i WHERE i.newsletter_id = n.id AND ((i.status = 'published') <> (i.issue_number IS NOT NULL) OR i.issue_number < n.start_issue_number OR i.issue_number >= n.next_issue_number)))`,
        ws,
      ),
  },
  {
    name: 'an email campaign has sent_at exactly when launched and scheduled_at while scheduled; a contact is a recipient once',
    violations: async (ws) => [
      ...(await rows(
        `SELECT id FROM email_campaigns WHERE workspace_id = ?1 AND ((status IN ('draft', 'scheduled')) = (sent_at IS NOT NULL) OR (status = 'scheduled' AND scheduled_at IS NULL))`,
        ws,
      )),
      ...(await rows(
        `SELECT campaign_id, contact_id FROM email_campaign_recipients WHERE workspace_id = ?1 GROUP BY campaign_id, contact_id HAVING count(*) > 1`,
        ws,
      )),
    ],
  },
  {
    name: 'every stage column is ordered 0..n-1',
    violations: (ws) =>
      rows(
        `SELECT stage_id, group_concat(position) AS positions FROM (SELECT stage_id, position FROM deals WHERE workspace_id = ?1 ORDER BY position)
         GROUP BY stage_id HAVING count(*) <> count(DISTINCT position) OR min(position) <> 0 OR max(position) <> count(*) - 1`,
        ws,
      ),
  },
  {
    name: 'a deal is in a stage of its own pipeline',
    violations: (ws) =>
      rows(
        `SELECT d.id FROM deals d LEFT JOIN stages s ON s.id = d.stage_id WHERE d.workspace_id = ?1 AND (s.id IS NULL OR s.pipeline_id <> d.pipeline_id)`,
        ws,
      ),
  },
  {
    name: 'closed_at and lost_reason follow the deal status',
    violations: (ws) =>
      rows(
        `SELECT id FROM deals WHERE workspace_id = ?1 AND ((status = 'open') <> (closed_at IS NULL) OR (status <> 'lost' AND lost_reason IS NOT NULL))`,
        ws,
      ),
  },
  {
    name: 'refunds of a charge add up to its refunded amount and never pass its recognized amount',
    violations: (ws) =>
      rows(
        `SELECT c.id FROM payment_entries c WHERE c.workspace_id = ?1 AND c.kind = 'charge' AND (c.refunded_cents > coalesce(c.recognized_cents, 0) AND c.refunded_cents > 0
           OR c.refunded_cents <> coalesce((SELECT -sum(r.amount_cents) FROM payment_entries r WHERE r.refunds_entry_id = c.id), 0))`,
        ws,
      ),
  },
  {
    name: 'a recurring plan records each cycle once and its entries have distinct sequences',
    violations: (ws) =>
      rows(
        `SELECT payment_id FROM payment_entries WHERE workspace_id = ?1 GROUP BY payment_id HAVING count(*) <> count(DISTINCT sequence) OR count(cycle) <> count(DISTINCT cycle)`,
        ws,
      ),
  },
  {
    name: "an order's refunds add up to its refunded total, never above its total; order numbers are 1..n",
    violations: (ws) =>
      rows(
        `SELECT o.id FROM orders o WHERE o.workspace_id = ?1 AND (o.refunded_total_cents > o.total_cents
           OR o.refunded_total_cents <> coalesce((SELECT sum(r.amount_cents) FROM order_refunds r WHERE r.order_id = o.id), 0))
         UNION ALL SELECT 'numbers' FROM (SELECT count(*) AS n, min(order_number) AS lo, max(order_number) AS hi FROM orders WHERE workspace_id = ?1) WHERE n > 0 AND (lo <> 1 OR hi <> n)`,
        ws,
      ),
  },
  {
    name: "a payment request's stamps follow its status, and a paid live link has exactly its one ledger payment",
    violations: (ws) =>
      rows(
        `SELECT r.id FROM payment_requests r WHERE r.workspace_id = ?1 AND ((r.status = 'paid') <> (r.paid_at IS NOT NULL)
           OR (r.status = 'cancelled' AND r.cancelled_at IS NULL)
           OR (r.status = 'paid' AND NOT r.test_mode) <> (r.contact_payment_id IS NOT NULL)
           OR (SELECT count(*) FROM payments p WHERE p.workspace_id = r.workspace_id AND p.external_reference = 'payment_request:' || r.id) <> (r.contact_payment_id IS NOT NULL))`,
        ws,
      ),
  },
  {
    name: 'a WhatsApp campaign counts each recipient once: sent + failed never exceed targeted',
    violations: (ws) =>
      rows(
        `SELECT id FROM whatsapp_campaigns WHERE workspace_id = ?1 AND (sent + failed > targeted OR targeted > (SELECT count(*) FROM whatsapp_campaign_recipients r WHERE r.campaign_id = whatsapp_campaigns.id))`,
        ws,
      ),
  },
  {
    name: 'at most 3 webhook endpoints',
    violations: (ws) => rows(`SELECT count(*) AS n FROM webhook_endpoints WHERE workspace_id = ?1 HAVING n > 3`, ws),
  },
  {
    name: 'label links point at labels of the same workspace',
    violations: (ws) =>
      rows(
        `SELECT l.contact_id FROM contact_tag_links l LEFT JOIN tags t ON t.id = l.tag_id AND t.workspace_id = l.workspace_id WHERE l.workspace_id = ?1 AND t.id IS NULL
         UNION ALL SELECT l.contact_id FROM contact_group_links l LEFT JOIN contact_groups g ON g.id = l.group_id AND g.workspace_id = l.workspace_id WHERE l.workspace_id = ?1 AND g.id IS NULL`,
        ws,
      ),
  },
];

async function target(ws: TestWorkspace, route: RouteCase): Promise<string> {
  const keys = resourceKeys(route.path);
  const records = await seedAll(ws, [
    ...new Set(
      Object.entries(keys)
        .filter(([name]) => route.params?.[name] === undefined)
        .map(([, key]) => key),
    ),
  ]);
  return route.path.replace(/\{([^}]+)\}/g, (_, name: string) => route.params?.[name] ?? records.get(keys[name])!.id);
}

const shown = (res: ApiResponse) => `${res.status} ${JSON.stringify(res.body).slice(0, 300)}`;

describe('parallel writes', () => {
  it.each(ROUTES.filter(mutates).map((r, i) => [`${r.method} ${r.path}`, r, shardFor(i)] as const))(
    `%s answers ${PARALLEL} parallel calls with 2xx or 4xx and leaves a valid state`,
    async (_, route, shard) => {
      const ws = await makeWorkspace({ rate_limits: { per_key_per_minute: 1_000_000 }, shard });
      const path = await target(ws, route);
      const bodies = await Promise.all(
        Array.from({ length: PARALLEL }, (_, i) => (takesBody(route) ? (route.parallelBody?.(i, ws) ?? route.body ?? {}) : undefined)),
      );
      const { file } = route;
      const answers = await Promise.all(
        bodies.map((body, i) =>
          file
            ? ws.api(route.method, path, undefined, { rawBody: file.body(i), headers: { 'content-type': file.contentType } })
            : ws.api(route.method, path, body),
        ),
      );

      for (const res of answers) expect(res.status < 300 || (res.status >= 400 && res.status < 500), shown(res)).toBe(true);
      expect(
        answers.some((r) => r.status < 300),
        `no call succeeded: ${answers.map(shown).join('; ')}`,
      ).toBe(true);

      const reads = new Set(
        answers.filter((r) => r.status < 300).flatMap((r) => readBackPaths(route, path, typeof r.body?.id === 'string' ? r.body.id : undefined)),
      );
      for (const read of reads) {
        const res = await ws.api('GET', read);
        // A deleted record's own GET answers 404; everything else reads back.
        const gone = route.method === 'DELETE' && read === path;
        expect(res.status, `GET ${read} after ${route.method} ${path}: ${shown(res)}`).toBe(gone ? 404 : 200);
        if (!gone) expect(typeof res.body, `GET ${read}`).toBe('object');
      }
      for (const invariant of INVARIANTS) expect(await invariant.violations(ws.id), invariant.name).toEqual([]);
    },
  );
});
