import { describe, expect, it } from 'vitest';
import { EVENT_PAYLOADS, LIVE_EVENT_TYPES } from '../../src/modules/events/payloads';
import { orderEventData } from '../../src/modules/orders/event-payload';
import type { OrderRow } from '../../src/modules/orders/schema';
import { expectFromOutbox, freshPhone, outbox, subscribed, useReceiver } from './support';

const ORDER_EVENTS = ['order.created', 'order.paid', 'order.refunded', 'order.cancelled', 'order.fulfilled'];
const receiver = useReceiver();

const snapshotKeys = [
  'order_id',
  'external_id',
  'number',
  'platform',
  'store_connection_id',
  'financial_status',
  'fulfillment_status',
  'currency',
  'total',
  'subtotal',
  'discount_total',
  'shipping_total',
  'tax_total',
  'refunded_total',
  'coupon_codes',
  'item_count',
  'first_item_name',
  'placed_at',
  'paid_at',
  'cancelled_at',
  'refunded_at',
  'created_at',
].sort();

describe('order events: the order snapshot', () => {
  it('order.created, order.paid, order.refunded and order.cancelled are delivered signed, equal to their outbox rows', async () => {
    const { ws, ep } = await subscribed(ORDER_EVENTS);
    const created = await ws.api('POST', '/v1/orders', {
      phone: freshPhone(),
      currency: 'eur',
      financial_status: 'paid',
      items: [{ title: 'Beans', unit_price: 12.5, quantity: 2 }],
      shipping_total: 5,
      coupon_codes: ['SPRING'],
      placed_at: '2026-03-01T09:00:00Z',
    });
    expect(created.status).toBe(201);
    const o = created.body;
    await ws.api('POST', `/v1/orders/${o.id}/refunds`, { amount: 10, external_refund_id: 're_1', reason: 'Broken' });
    await ws.api('POST', `/v1/orders/${o.id}/cancel`, {});
    const delivered = await receiver.received(ep, 4);
    const rows = await outbox(ws.id, 'order.*');
    expect(rows).toHaveLength(4);
    for (const d of delivered) expectFromOutbox(d, rows.find((r) => r.id === d.id)!);
    const byType = Object.fromEntries(rows.map((r) => [r.type, r.data]));
    expect(Object.keys(byType).sort()).toEqual(['order.cancelled', 'order.created', 'order.paid', 'order.refunded']);
    expect(byType['order.created']).toEqual({
      order_id: o.id,
      external_id: null,
      number: '1',
      platform: 'api',
      store_connection_id: null,
      financial_status: 'paid',
      fulfillment_status: 'unfulfilled',
      currency: 'EUR',
      total: 30,
      subtotal: 25,
      discount_total: 0,
      shipping_total: 5,
      tax_total: 0,
      refunded_total: 0,
      coupon_codes: ['SPRING'],
      item_count: 2,
      first_item_name: 'Beans',
      placed_at: '2026-03-01T09:00:00.000Z',
      paid_at: o.paid_at,
      cancelled_at: null,
      refunded_at: null,
      created_at: o.created_at,
    });
    expect(byType['order.paid']).toEqual(byType['order.created']);
    expect(byType['order.refunded']).toMatchObject({
      financial_status: 'partially_refunded',
      refunded_total: 10,
      refund: { amount: 10, external_refund_id: 're_1', reason: 'Broken', refunded_at: expect.any(String) },
    });
    expect(byType['order.refunded'].refunded_at).toBe(byType['order.refunded'].refund.refunded_at);
    expect(byType['order.cancelled']).toMatchObject({ financial_status: 'partially_refunded', cancelled_at: expect.any(String) });
    expect(byType['order.cancelled']).not.toHaveProperty('refund');
    for (const row of rows) {
      expect(
        Object.keys(row.data)
          .filter((k) => k !== 'refund')
          .sort(),
      ).toEqual(snapshotKeys);
      expect(EVENT_PAYLOADS[row.type as keyof typeof EVENT_PAYLOADS].safeParse(row.data).success, row.type).toBe(true);
    }
  });

  it('order.fulfilled has no API trigger; its data builder gives the same snapshot (store display number first)', () => {
    const row: OrderRow = {
      id: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8c',
      workspaceId: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8d',
      contactId: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8e',
      orderNumber: 42,
      number: '#1042',
      platform: 'shopify',
      source: 'shopify',
      storeConnectionId: '01938f4e-8f5a-7c3e-9b1a-2f4d5e6a7b8f',
      storeDomain: 'shop.example',
      externalOrderId: '5001',
      externalUpdatedAt: null,
      externalReference: null,
      dealId: null,
      financialStatus: 'paid',
      fulfillmentStatus: 'fulfilled',
      currency: 'USD',
      totalCents: 1999,
      subtotalCents: 1999,
      discountTotalCents: 0,
      shippingTotalCents: 0,
      taxTotalCents: 0,
      refundedTotalCents: 0,
      itemCount: 1,
      firstItemName: 'Mug',
      couponCodes: [],
      placedAt: '2026-03-01T09:00:00.000Z',
      paidAt: '2026-03-01T09:00:00.000Z',
      cancelledAt: null,
      refundedAt: null,
      paymentReference: null,
      paymentSyncedAt: null,
      note: null,
      metadata: null,
      createdBy: null,
      revision: 0,
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedAt: '2026-03-01T09:00:00.000Z',
    };
    const data = orderEventData(row);
    expect(data).toMatchObject({
      number: '#1042',
      external_id: '5001',
      platform: 'shopify',
      fulfillment_status: 'fulfilled',
      total: 19.99,
      store_connection_id: row.storeConnectionId,
    });
    expect(Object.keys(data).sort()).toEqual(snapshotKeys);
    expect(EVENT_PAYLOADS['order.fulfilled'].safeParse(data).success).toBe(true);
    expect(orderEventData({ ...row, number: null }).number).toBe('42');
    expect(LIVE_EVENT_TYPES).not.toContain('order.fulfilled');
  });
});
