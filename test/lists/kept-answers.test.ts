import { describe, expect, it } from 'vitest';
import { ListAnswers, type ListRead } from '../../src/platform/list-answers';
import { createDeal } from '../deals/helpers';
import { createOrder } from '../orders/helpers';
import { newsletter, readyIssue, subscribe } from '../newsletters/support';
import { rowsIn, shardOf } from '../support/db';
import { makeWorkspace, type TestWorkspace } from '../support/harness';

const generationOf = async (ws: TestWorkspace, table: string) =>
  (await rowsIn<{ generation: number }>(ws.id, `SELECT generation FROM ${table} WHERE workspace_id = ?`, ws.id))[0]?.generation ?? 0;

/** Runs SQL on the workspace's shard as a write path outside the services would (a sweep, a migration). */
const write = async (ws: TestWorkspace, sql: string, ...binds: unknown[]) => (await shardOf(ws.id)).prepare(sql).bind(...binds).run();

describe('kept list answers', () => {
  it('serve the kept answer only while its generation is the current one', async () => {
    const answers = new ListAnswers<string>(2);
    const reads: (string | null)[] = [];
    let generation = '1';
    let computed = 0;
    const read = async (known: string | null): Promise<ListRead<{ value: string }>> => {
      reads.push(known);
      return known === generation ? { generation, unchanged: true } : { generation, unchanged: false, value: `v${generation}` };
    };
    const answer = (key: string) => answers.answer({ key }, read, ({ value }) => `${key}:${value}:${++computed}`);
    expect(await answer('a')).toBe('a:v1:1');
    expect(await answer('a')).toBe('a:v1:1');
    generation = '2';
    expect(await answer('a')).toBe('a:v2:2');
    expect(await answer('b')).toBe('b:v2:3');
    expect(await answer('c')).toBe('c:v2:4');
    // At most two kept: `a`, used longest ago, went.
    expect(await answer('a')).toBe('a:v2:5');
    expect(reads).toEqual([null, '1', '1', null, null, null]);
  });

  it('show a deal list again only while neither its deals nor their contacts changed, each write path seen through triggers', async () => {
    const ws = await makeWorkspace();
    const deal = await createDeal(ws, { title: 'First', name: 'Ann' });
    const first = await ws.api('GET', '/v1/deals');
    expect(first.body.data.map((d: any) => [d.title, d.contact_name])).toEqual([['First', 'Ann']]);

    // The kept answer is what is served: a row changed with the generation put back shows the old answer.
    const kept = await generationOf(ws, 'deal_list_generations');
    await write(ws, "UPDATE deals SET title = 'Hidden' WHERE id = ?", deal.id);
    expect(await generationOf(ws, 'deal_list_generations')).toBe(kept + 1);
    await write(ws, 'UPDATE deal_list_generations SET generation = ? WHERE workspace_id = ?', kept, ws.id);
    expect((await ws.api('GET', '/v1/deals')).body).toEqual(first.body);

    // Any write moves it: SQL outside the services, a contact's new name, a new deal, a deleted one.
    await write(ws, "UPDATE deals SET title = 'Renamed' WHERE id = ?", deal.id);
    expect((await ws.api('GET', '/v1/deals')).body.data[0].title).toBe('Renamed');
    expect((await ws.api('PATCH', `/v1/contacts/${deal.contact_id}`, { name: 'Anna' })).status).toBe(200);
    expect((await ws.api('GET', '/v1/deals')).body.data[0].contact_name).toBe('Anna');
    const second = await createDeal(ws, { title: 'Second' });
    const both = await ws.api('GET', '/v1/deals');
    expect(both.body.total).toBe(2);
    expect(both.body.data.map((d: any) => d.id)).toEqual([second.id, deal.id]);
    await write(ws, 'DELETE FROM deals WHERE id = ?', second.id);
    expect((await ws.api('GET', '/v1/deals')).body.data.map((d: any) => d.id)).toEqual([deal.id]);

    // Each set of filters and page is its own answer.
    expect((await ws.api('GET', `/v1/deals?contact_id=${second.contact_id}`)).body.total).toBe(0);
    expect((await ws.api('GET', '/v1/deals?limit=1&offset=1')).body).toMatchObject({ data: [], total: 1, limit: 1, offset: 1 });
  });

  it('never answer one workspace with another’s kept page', async () => {
    const [a, b] = [await makeWorkspace(), await makeWorkspace()];
    await createDeal(a, { title: 'Only in A' });
    expect((await a.api('GET', '/v1/deals')).body.total).toBe(1);
    expect((await b.api('GET', '/v1/deals')).body).toMatchObject({ data: [], total: 0 });
    await createOrder(b);
    expect((await b.api('GET', '/v1/orders')).body.total).toBe(1);
    expect((await a.api('GET', '/v1/orders')).body.total).toBe(0);
  });

  it('show an order list again only while neither its orders nor their contacts changed', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const order = await createOrder(ws, { name: 'Olga' });
    const first = await ws.api('GET', '/v1/orders');
    expect(first.body.data.map((o: any) => o.contact_name)).toEqual(['Olga']);
    const kept = await generationOf(ws, 'order_list_generations');
    await write(ws, "UPDATE orders SET note = 'x' WHERE id = ?", order.id);
    await write(ws, 'UPDATE order_list_generations SET generation = ? WHERE workspace_id = ?', kept, ws.id);
    expect((await ws.api('GET', '/v1/orders')).body).toEqual(first.body);

    expect((await ws.api('PATCH', `/v1/contacts/${order.contact_id}`, { name: 'Olga K' })).status).toBe(200);
    expect((await ws.api('GET', '/v1/orders')).body.data[0].contact_name).toBe('Olga K');
    await write(ws, "UPDATE orders SET financial_status = 'refunded' WHERE id = ?", order.id);
    expect((await ws.api('GET', '/v1/orders')).body.data[0].financial_status).toBe('refunded');
    await createOrder(ws);
    expect((await ws.api('GET', '/v1/orders')).body.total).toBe(2);
  });

  it('show newsletter and issue lists again only while no newsletter, subscription or issue changed', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const news = await newsletter(ws, 'Weekly');
    const contact = await ws.api('POST', '/v1/contacts', { email: `n-${crypto.randomUUID().slice(0, 8)}@example.com` });
    expect((await ws.api('GET', '/v1/newsletters')).body.data.map((n: any) => n.name)).toEqual(['Weekly']);
    const activeOf = async () => (await ws.api('GET', '/v1/newsletters')).body.data[0];
    const before = await activeOf();
    await subscribe(ws, news.id, contact.body.id);
    expect(await activeOf()).not.toEqual(before);

    const issues = `/v1/newsletters/${news.id}/issues`;
    expect((await ws.api('GET', issues)).body.total).toBe(0);
    const issue = await readyIssue(ws, news.id, 'Hello');
    expect((await ws.api('GET', issues)).body.data.map((i: any) => i.id)).toEqual([issue.id]);
    await write(ws, "UPDATE newsletter_issues SET subject = 'Changed' WHERE id = ?", issue.id);
    expect((await ws.api('GET', issues)).body.data[0].subject).toBe('Changed');
    await write(ws, 'DELETE FROM newsletter_issues WHERE id = ?', issue.id);
    expect((await ws.api('GET', issues)).body.total).toBe(0);
    // The newsletter itself is read on every request: a deleted one is a 404, kept page or not.
    await write(ws, 'DELETE FROM newsletters WHERE id = ?', news.id);
    expect((await ws.api('GET', issues)).status).toBe(404);
  });
});
