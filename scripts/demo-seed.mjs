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
    admin('PUT', `/admin/v1/workspaces/${ws}/scoring`, {
      enabled: true,
      half_life_days: 30,
      rules: [
        { signal: 'email.opened', points: 5 },
        { signal: 'email.clicked', points: 10 },
        { signal: 'booking.created', points: 20 },
        { signal: 'order.paid', points: 25 },
        { signal: 'deal.lost', points: -15 },
        { field: 'lifecycle_stage', equals: 'customer', points: 30 },
      ],
    }),
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
  async (admin, ws) => {
    const host = await admin('POST', `/admin/v1/workspaces/${ws}/users`, { name: 'Sam Scheduler', email: 'sam@demo.example', role: 'agent' });
    const weekdays = Object.fromEntries(
      ['mon', 'tue', 'wed', 'thu', 'fri'].map((d) => [
        d,
        [
          ['09:00', '12:00'],
          ['13:00', '17:00'],
        ],
      ]),
    );
    await admin('POST', `/admin/v1/workspaces/${ws}/meeting-types`, {
      name: 'Discovery call',
      slug: 'discovery-call',
      description: 'A first 30-minute conversation',
      duration_minutes: 30,
      scheduling_kind: 'one_on_one',
      host_user_ids: [host.id],
      timezone: 'America/New_York',
      weekly_hours: weekdays,
      min_notice_minutes: 60,
      buffer_after_minutes: 10,
    });
  },
  // Approved WhatsApp templates: one transactional, one marketing (named placeholders).
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/templates`, {
      name: 'order_update',
      language: 'en_US',
      category: 'utility',
      body: 'Hi {{1}}, your order {{2}} is on its way.',
    }),
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/templates`, {
      name: 'spring_offer',
      language: 'en_US',
      category: 'marketing',
      body: 'Hi {{first_name}}, use {{code}} for 20% off this week.',
      buttons: [{ type: 'quick_reply', text: 'Stop promotions' }],
    }),
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/sender-profiles`, {
      from_name: 'Demo Shop',
      from_email: 'hello@mail.demo.example',
      reply_to: 'support@demo.example',
      domain_verified: true,
      is_default: true,
    }),
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/audiences`, { name: 'Prospects', kind: 'dynamic', filters: { lifecycle_stage: 'prospect' } }),
  // A content snippet: `::snippet[footer]` in campaign and newsletter content.
  (admin, ws) =>
    admin('POST', `/admin/v1/workspaces/${ws}/snippets`, {
      name: 'footer',
      markdown: 'Demo Shop · 1 Market Street · [demo.example](https://demo.example)',
    }),
];

/** Records made through the public API itself, so the demo has something to list. */
const DEMO_RECORDS = [
  async (api) => {
    // Two active automations, made first so the demo's own orders and pay-links below enroll Ada
    // (GET /v1/automations/{id}/enrollments shows the runs; the operator outbox the emails they send).
    const automations = [
      {
        name: 'Order thank-you and review request',
        trigger: { event: 'order.paid' },
        steps: [
          {
            id: 'thank_you',
            type: 'send_email',
            subject: 'Thank you for your order, [[first_name : friend]]',
            content: { markdown: 'We are preparing it now.\n\n::snippet[footer]' },
          },
          { id: 'a_week', type: 'wait', duration: 'P7D' },
          {
            id: 'review',
            type: 'send_email',
            subject: 'How was your order?',
            content: { markdown: 'Tell us in one click: [leave a review](https://demo.example/review).' },
          },
        ],
      },
      {
        name: 'Pay-link reminder',
        trigger: { event: 'payment_request.created' },
        exit_on: ['payment_request.cancelled', 'payment_request.expired'],
        re_enrollment: 'always',
        steps: [
          { id: 'paid', type: 'wait_for', event: 'payment_request.paid', timeout: 'PT1H' },
          {
            id: 'check',
            type: 'branch',
            if: { received: 'paid' },
            then: [],
            else: [
              {
                id: 'remind',
                type: 'send_email',
                subject: 'Your payment link is waiting',
                content: { markdown: 'Pay in one click from the link we sent you.' },
              },
            ],
          },
        ],
      },
    ];
    for (const automation of automations) {
      const created = await api('POST', '/v1/automations', automation);
      await api('POST', `/v1/automations/${created.id}/activate`);
    }
  },
  async (api, admin, ws) => {
    // A newsletter with two published issues (the archive at /n/{ws}/demo-weekly), a draft, and Ada
    // subscribed (the deliver-newsletters sweep sends her the next issue published).
    const news = await api('POST', '/v1/newsletters', { name: 'Demo Weekly', description: 'What is new at the demo shop' });
    for (const [subject, markdown] of [
      [
        'Welcome to Demo Weekly',
        '# Welcome, [[first_name : friend]]\n\nEvery week: what is new in the shop.\n\n::button[Visit the shop](https://demo.example)',
      ],
      ['Spring collection', '## Spring is here\n\n- New onboarding packages\n- Workshops every Friday'],
    ]) {
      const issue = await api('POST', `/v1/newsletters/${news.id}/issues`, {
        subject,
        content: { markdown },
        external_reference: `demo-issue-${subject}`,
      });
      await api('POST', `/v1/newsletter-issues/${issue.id}/publish`);
    }
    await api('POST', `/v1/newsletters/${news.id}/issues`, { subject: 'Summer plans (draft)', content: { markdown: 'Coming soon.' } });
    const ada = await api('POST', '/v1/contacts', { name: 'Ada Lovelace', email: 'ada@demo.example' });
    await admin('POST', `/admin/v1/workspaces/${ws}/newsletters/${news.id}/subscriptions`, { contact_id: ada.id });
  },
  // A draft email campaign to the prospects audience (estimate it, then send or schedule it).
  (api) =>
    api('POST', '/v1/email-campaigns', {
      name: 'Spring sale',
      subject: 'Hi [[first_name : there]], spring is here',
      preheader: 'Twenty percent off this week',
      content: { markdown: '# Spring sale\n\nHello [[first_name : there]]!\n\n::button[Shop now](https://demo.example)\n\n::snippet[footer]' },
      external_reference: 'demo-spring-sale',
    }),
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
    await api('POST', '/v1/payments', {
      type: 'one_time',
      contact_id: contact.id,
      product_sku: 'ONB-1',
      amount: 490,
      external_reference: 'demo-payment-1',
    });
    await api('POST', '/v1/payments', {
      type: 'recurring',
      contact_id: contact.id,
      title: 'Support plan',
      amount: 49,
      interval: 'monthly',
      external_reference: 'demo-plan-1',
    });
    // A hosted pay-link (open its pay_url in a browser; the sandbox Pay button pays it) and a
    // payment carrying an invoice pointer, so GET /v1/contacts/{id}/documents lists something.
    await api('POST', '/v1/payment-requests', { contact_id: contact.id, amount: 120, title: 'Workshop seat' });
    await api('POST', '/v1/payments', {
      type: 'one_time',
      contact_id: contact.id,
      title: 'Consulting hours',
      amount: 300,
      external_reference: 'demo-payment-2',
      metadata: { document: { provider: 'sandbox', id: 'demo-inv-1', number: 'INV-0001', type: 'tax_invoice', url: null } },
    });
    await api('PUT', `/v1/contacts/${contact.id}/consent/email`, { state: 'subscribed', source: 'demo' });
  },
  async (api) => {
    // Orders: a paid one (its payment recorded in the ledger) with a partial refund, and a pending one.
    const paid = await api('POST', '/v1/orders', {
      email: 'ada@demo.example',
      financial_status: 'paid',
      items: [{ product_sku: 'ONB-1' }, { title: 'Travel expenses', unit_price: 85.5, quantity: 2, discount_percent: 10 }],
      shipping_total: 0,
      tax_total: 19.6,
      coupon_codes: ['WELCOME'],
      external_reference: 'demo-order-1',
    });
    await api('POST', `/v1/orders/${paid.id}/refunds`, { amount: 20, reason: 'Goodwill', external_refund_id: 'demo-refund-1' });
    await api('POST', '/v1/orders', {
      email: 'ada@demo.example',
      items: [{ title: 'Workshop seat', unit_price: 150 }],
      external_reference: 'demo-order-2',
    });
  },
  async (api) => {
    const [type] = (await api('GET', '/v1/meeting-types')).data;
    const from = new Date().toISOString();
    const to = new Date(Date.now() + 14 * 86_400_000).toISOString();
    const { slots } = await api('GET', `/v1/meeting-types/${type.id}/slots?from=${from}&to=${to}`);
    if (slots.length)
      await api('POST', '/v1/bookings', {
        meeting_type_id: type.id,
        start_at: slots[0].start,
        timezone: 'Europe/London',
        invitee: { name: 'Ada Lovelace', email: 'ada@demo.example' },
      });
  },
  async (api) => {
    const templates = (await api('GET', '/v1/templates?sort=name')).data;
    const order = templates.find((t) => t.name === 'order_update');
    const offer = templates.find((t) => t.name === 'spring_offer');
    // Through the sandbox provider: the message lands in Ada's inbox conversation and the operator outbox.
    await api('POST', `/v1/templates/${order.id}/send`, {
      to: '+14155550123',
      body_variables: [
        { type: 'text', text: 'Ada' },
        { type: 'text', text: 'A-1001' },
      ],
    });
    await api('POST', '/v1/campaigns', {
      name: 'Spring offer',
      template_id: offer.id,
      audience_filters: { lifecycle_stage: 'prospect' },
      variables: { first_name: '{{contact.first_name|there}}', code: 'SPRING20' },
    });
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
  async (api, _admin, _ws, importCsv) => {
    await importCsv(
      'email,name,company_name,lifecycle_stage,tags\nlin@demo.example,Lin Imported,Demo Imports Ltd,lead,imported|trade fair\nmo@demo.example,Mo Imported,,prospect,imported\n',
    );
    await api('POST', '/v1/contact-exports', { filter: { lifecycle_stage: ['lead', 'prospect'] } });
  },
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
  const importCsv = async (csv) => {
    const res = await fetch(`${base}/v1/contact-imports`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'text/csv' },
      body: csv,
    });
    if (res.status !== 201) throw new Error(`POST /v1/contact-imports -> ${res.status} ${await res.text()}`);
  };
  for (const step of DEMO_RECORDS) await step(api, admin, ws.id, importCsv);
  const saved = { workspace_id: ws.id, api_key: key.key };
  writeFileSync(stateFile, JSON.stringify(saved, null, 2));
  return saved;
}
