import { expect } from 'vitest';
import type { TestWorkspace } from '../support/harness';

let phoneCounter = 0;
export const freshPhone = () => `+1202556${String(1000 + (++phoneCounter % 9000)).padStart(4, '0')}`;

export async function createPayment(ws: TestWorkspace, body: Record<string, unknown> = {}) {
  const res = await ws.api('POST', '/v1/payments', { type: 'one_time', amount: 10, phone: freshPhone(), ...body });
  if (res.status !== 201) throw new Error(`payment create -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

export const expectMessage = (res: { status: number; body: any }, status: number, message: string) => {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ statusCode: status, message });
};
