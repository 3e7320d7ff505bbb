// Makes sure the local demo workspace exists with every in-app object a demo
// needs; reuses it (and its key) across restarts through .state/demo.json.

async function request(base, token, method, path, body) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

async function must(base, token, method, path, body) {
  const res = await request(base, token, method, path, body);
  if (res.status >= 300) throw new Error(`${method} ${path} -> ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Objects each module needs for a demo, created once with the workspace. */
const DEMO_STEPS = [
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/pipelines`, {
      name: 'Sales',
      is_default: true,
      stages: [
        { name: 'New lead', win_probability: 10 },
        { name: 'Qualified', win_probability: 30 },
        { name: 'Proposal', win_probability: 60 },
        { name: 'Negotiation', win_probability: 80 },
      ],
    }),
  (admin, ws) => admin('POST', `/admin/v1/workspaces/${ws}/users`, { name: 'Dana Demo', email: 'dana@demo.example', role: 'agent' }),
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/sender-profiles`, { from_name: 'Demo Shop', from_email: 'hello@mail.demo.example', reply_to: 'support@demo.example', domain_verified: true, is_default: true }),
  (admin, ws) => admin('POST', `/admin/v1/workspaces/${ws}/audiences`, { name: 'Prospects', kind: 'dynamic', filters: { lifecycle_stage: 'prospect' } }),
];

/** Records made through the public API itself, so the demo has something to list. */
const DEMO_RECORDS = [
  (api) => api('POST', '/v1/products', { name: 'Onboarding package', sku: 'ONB-1', price: 490, external_id: 'demo-onboarding' }),
  async (api) => {
    const contact = await api('POST', '/v1/contacts', {
      name: 'Ada Lovelace',
      email: 'ada@demo.example',
      phone: '+14155550123',
      company_name: 'Analytical Engines',
      lifecycle_stage: 'prospect',
      tags: ['demo'],
    });
    await api('POST', '/v1/deals', { contact_id: contact.id, product_sku: 'ONB-1', external_reference: 'demo-deal-1' });
    await api('POST', '/v1/payments', { type: 'one_time', contact_id: contact.id, product_sku: 'ONB-1', amount: 490, external_reference: 'demo-payment-1' });
    await api('POST', '/v1/payments', {
      type: 'recurring',
      contact_id: contact.id,
      title: 'Support plan',
      amount: 49,
      interval: 'monthly',
      external_reference: 'demo-plan-1',
    });
    await api('PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'subscribed', source: 'demo' });
  },
  (api) => api('POST', '/v1/suppressions', { email: 'bounced@demo.example', reason: 'bounce', note: 'Demo: a hard bounce' }),
  (api) =>
    api('POST', '/v1/emails', {
      to: 'ada@demo.example',
      subject: 'Welcome to the demo',
      html: '<p>Hello Ada, <a href="https://example.com/start">get started</a>.</p>',
      idempotency_key: 'demo-welcome',
      tracking: { opens: true, clicks: true },
    }),
];

export async function seedDemo({ base, adminToken, stateFile, readFileSync, writeFileSync, existsSync }) {
  if (existsSync(stateFile)) {
    const saved = JSON.parse(readFileSync(stateFile, 'utf8'));
    const check = await request(base, saved.api_key, 'GET', '/v1/pipelines');
    if (check.status === 200) return saved;
  }
  const admin = (method, path, body) => must(base, adminToken, method, path, body);
  const ws = await admin('POST', '/admin/v1/workspaces', { name: 'Demo workspace', timezone: 'UTC', default_country: 'US', currency: 'USD' });
  for (const step of DEMO_STEPS) await step(admin, ws.id);
  const key = await admin('POST', `/admin/v1/workspaces/${ws.id}/api-keys`, { name: 'Demo key' });
  const api = (method, path, body) => must(base, key.key, method, path, body);
  for (const step of DEMO_RECORDS) await step(api);
  const saved = { workspace_id: ws.id, api_key: key.key };
  writeFileSync(stateFile, JSON.stringify(saved, null, 2));
  return saved;
}
