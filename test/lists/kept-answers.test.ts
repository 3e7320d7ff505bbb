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
  it('serve the kept answer only while its generation is the current one, checked by the generation alone once it stood still', async () => {
    const answers = new ListAnswers<string>(2);
    const reads: string[] = [];
    let generation = '1';
    let computed = 0;
    const source = {
      since: async (known: string | null): Promise<ListRead<{ value: string }>> => {
        reads.push(`since ${known}`);
        return known === generation ? { generation, unchanged: true } : { generation, unchanged: false, value: `v${generation}` };
      },
      generation: async () => {
        reads.push('generation');
        return generation;
      },
    };
    const answer = (key: string) => answers.answer({ key }, source, ({ value }) => `${key}:${value}:${++computed}`);
    expect(await answer('a')).toBe('a:v1:1');
    expect(await answer('a')).toBe('a:v1:1');
    expect(await answer('a')).toBe('a:v1:1');
    expect(reads.splice(0)).toEqual(['since null', 'since 1', 'generation']);
    // Moved: the check misses, and the page is read afresh; until it stands still again, the list statement checks it.
    generation = '2';
    expect(await answer('a')).toBe('a:v2:2');
    generation = '3';
    expect(await answer('a')).toBe('a:v3:3');
    expect(await answer('a')).toBe('a:v3:3');
    expect(await answer('a')).toBe('a:v3:3');
    expect(reads.splice(0)).toEqual(['generation', 'since null', 'since 2', 'since 3', 'generation']);
    expect(await answer('b')).toBe('b:v3:4');
    expect(await answer('c')).toBe('c:v3:5');
    // At most two kept: `a`, used longest ago, went.
    expect(await answer('a')).toBe('a:v3:6');
    expect(reads).toEqual(['since null', 'since null', 'since null']);
  });

  it('check a steady page of each list by its generation, and read it afresh once that moved', async () => {
    const ws = await makeWorkspace();
    const deal = await createDeal(ws, { title: 'Deal' });
    const order = await createOrder(ws);
    const news = await newsletter(ws, 'Steady');
    const lists = ['/v1/deals', '/v1/orders', '/v1/newsletters', `/v1/newsletters/${news.id}/issues`];
    // Three reads each: computed, found unchanged by the list statement, then checked by the generation alone.
    for (const path of lists) for (let i = 0; i < 3; i++) expect((await ws.api('GET', path)).status).toBe(200);
    await write(ws, "UPDATE deals SET title = 'Moved' WHERE id = ?", deal.id);
    await write(ws, "UPDATE orders SET financial_status = 'refunded' WHERE id = ?", order.id);
    await write(ws, "UPDATE newsletters SET name = 'Moved' WHERE id = ?", news.id);
    expect((await ws.api('GET', '/v1/deals')).body.data[0].title).toBe('Moved');
    expect((await ws.api('GET', '/v1/orders')).body.data[0].financial_status).toBe('refunded');
    expect((await ws.api('GET', '/v1/newsletters')).body.data[0].name).toBe('Moved');
    // A steady issue page whose newsletter went: deleting it moves the generation, so the check misses and the read answers 404.
    const issues = lists[3];
    for (let i = 0; i < 3; i++) expect((await ws.api('GET', issues)).body.total).toBe(0);
    await write(ws, 'DELETE FROM newsletters WHERE id = ?', news.id);
    expect((await ws.api('GET', issues)).status).toBe(404);
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
    // The newsletter is read with every computed page: a deleted one is a 404.
    await write(ws, 'DELETE FROM newsletters WHERE id = ?', news.id);
    expect((await ws.api('GET', issues)).status).toBe(404);
  });

  it('show a contact’s stored documents again only while its payments, entries, requests and identity stand still', async () => {
    const ws = await makeWorkspace();
    const contact = (await ws.api('POST', '/v1/contacts', { email: `d-${crypto.randomUUID().slice(0, 8)}@example.com` })).body;
    const pointer = (id: string) => JSON.stringify({ provider: 'stripe', id, type: 'receipt' });
    const payment = (await ws.api('POST', '/v1/payments', { type: 'one_time', contact_id: contact.id, amount: 10 })).body;
    const documents = `/v1/contacts/${contact.id}/documents`;
    const ids = async () => (await ws.api('GET', documents)).body.documents.map((d: any) => d.documentId).sort();
    for (let i = 0; i < 3; i++) expect(await ids()).toEqual([]);

    // The kept answer is what is served: a pointer written with the generation put back stays unseen.
    const kept = await generationOf(ws, 'payment_document_generations');
    await write(ws, `UPDATE payments SET metadata = json_object('document', json(?)) WHERE id = ?`, pointer('in_hidden'), payment.id);
    await write(ws, 'UPDATE payment_document_generations SET generation = ? WHERE workspace_id = ?', kept, ws.id);
    expect(await ids()).toEqual([]);

    // Each table moves it: the payment, its ledger entry, a payment request.
    await write(ws, `UPDATE payments SET metadata = json_object('document', json(?)) WHERE id = ?`, pointer('in_1'), payment.id);
    expect(await ids()).toEqual(['in_1']);
    for (let i = 0; i < 2; i++) await ids();
    await write(ws, 'UPDATE payment_entries SET credit_document = ? WHERE payment_id = ?', pointer('cn_1'), payment.id);
    expect(await ids()).toEqual(['cn_1', 'in_1']);
    const request = (await ws.api('POST', '/v1/payment-requests', { contact_id: contact.id, amount: 5 })).body;
    for (let i = 0; i < 3; i++) await ids();
    await write(ws, 'UPDATE payment_requests SET document = ? WHERE id = ?', pointer('rc_1'), request.id);
    expect(await ids()).toEqual(['cn_1', 'in_1', 'rc_1']);
    // A contact gone (a merge deletes the one merged away): the steady page is not served, the read answers 404.
    for (let i = 0; i < 2; i++) await ids();
    await write(ws, 'DELETE FROM contacts WHERE id = ?', contact.id);
    expect((await ws.api('GET', documents)).status).toBe(404);
  });
});
