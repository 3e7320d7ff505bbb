import { describe, expect, it } from 'vitest';
import { FEATURES } from '../../src/platform/workspace';
import { wiring } from '../../src/wiring';
import { makeWorkspace } from '../support/harness';

/** A concrete path for each gate in the one table the middleware reads. */
const SAMPLE_PATHS: Record<string, { method: string; path: string }> = {
  '^\\/v1\\/deals(\\/|$)': { method: 'GET', path: '/v1/deals' },
  '^\\/v1\\/pipelines(\\/|$)': { method: 'GET', path: '/v1/pipelines' },
  '^\\/v1\\/payments(\\/|$)': { method: 'POST', path: '/v1/payments/00000000-0000-7000-8000-000000000000/refund' },
  '^\\/v1\\/contacts\\/[^/]+\\/documents\\/?$': { method: 'GET', path: '/v1/contacts/00000000-0000-7000-8000-000000000000/documents' },
  '^\\/v1\\/payment-requests(\\/|$)': { method: 'GET', path: '/v1/payment-requests' },
  '^\\/v1\\/orders(\\/|$)': { method: 'GET', path: '/v1/orders' },
  '^\\/v1\\/campaigns(\\/|$)': { method: 'POST', path: '/v1/campaigns/00000000-0000-7000-8000-000000000000/execute' },
  '^\\/v1\\/bookings(\\/|$)': { method: 'GET', path: '/v1/bookings' },
  '^\\/v1\\/meeting-types(\\/|$)': { method: 'GET', path: '/v1/meeting-types' },
  '^\\/v1\\/email-campaigns(\\/|$)': { method: 'GET', path: '/v1/email-campaigns' },
  '^\\/v1\\/suppressions(\\/|$)': { method: 'GET', path: '/v1/suppressions' },
  '^\\/v1\\/sender-profiles\\/?$': { method: 'GET', path: '/v1/sender-profiles' },
  '^\\/v1\\/newsletters(\\/|$)': { method: 'GET', path: '/v1/newsletters' },
  '^\\/v1\\/newsletter-issues(\\/|$)': { method: 'GET', path: '/v1/newsletter-issues/00000000-0000-7000-8000-000000000000' },
};

describe('feature gates', () => {
  it('has a sample path for every gate in the table', () => {
    expect(wiring.featureGates.map((g) => g.pattern.source).sort()).toEqual(Object.keys(SAMPLE_PATHS).sort());
  });

  for (const gate of wiring.featureGates) {
    const sample = SAMPLE_PATHS[gate.pattern.source];
    it(`${sample.method} ${sample.path} needs ${gate.feature}`, async () => {
      const without = await makeWorkspace({ features: FEATURES.filter((f) => f !== gate.feature) }, { pipeline: false });
      const res = await without.api(sample.method, sample.path, sample.method === 'GET' ? undefined : {});
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ message: expect.stringContaining(gate.feature), error_code: 'FEATURE_NOT_INCLUDED_IN_PLAN' });
      expect(res.body).not.toHaveProperty('statusCode');

      const withIt = await makeWorkspace({ features: [gate.feature] }, { pipeline: false });
      const allowed = await withIt.api(sample.method, sample.path, sample.method === 'GET' ? undefined : {});
      expect(allowed.status).not.toBe(403);
    });
  }

  it('leaves contacts, products and webhook endpoints to plan-wide API access', async () => {
    const bare = await makeWorkspace({ features: [] }, { pipeline: false });
    for (const path of [
      '/v1/contacts',
      '/v1/products',
      '/v1/webhook-endpoints',
      '/v1/tags',
      '/v1/contact-groups',
      '/v1/templates',
      '/v1/audiences',
    ]) {
      const res = await bare.api('GET', path);
      expect(res.status, path).not.toBe(403);
    }
  });
});
