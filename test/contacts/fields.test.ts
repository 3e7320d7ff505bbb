import { describe, expect, it } from 'vitest';
import { makeWorkspace, uuidRe } from '../support/harness';
import { createContact } from './helpers';

const STORED_FIELDS = [
  'phone',
  'name',
  'first_name',
  'last_name',
  'email',
  'avatar_url',
  'notes',
  'lifecycle_stage',
  'source',
  'block_state',
  'company_name',
  'vat_number',
  'job_title',
  'industry',
  'company_website',
  'annual_revenue',
  'employee_count',
  'currency_preference',
  'address_line1',
  'address_line2',
  'city',
  'state',
  'country',
  'postal_code',
  'gender',
  'date_of_birth',
  'language',
  'source_page_url',
  'source_page_title',
  'referrer',
  'user_agent',
  'affiliate',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_term',
  'utm_content',
  'gclid',
  'fbclid',
  'lead_score',
  'linkedin_url',
  'facebook_url',
  'instagram_handle',
  'twitter_handle',
  'custom_fields',
  'tags',
  'groups',
];

describe('contact fields', () => {
  it('answers every stored and computed field, unset ones as null', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'only@example.com' });
    for (const f of [
      ...STORED_FIELDS,
      'id',
      'workspace_id',
      'event_attendances',
      'whatsapp_subscribed',
      'email_subscribed',
      'whatsapp_deliverability',
      'email_deliverability',
      'score_band',
      'created_at',
      'updated_at',
      'duplicate',
    ]) {
      expect(c, f).toHaveProperty(f);
    }
    expect(c.id).toMatch(uuidRe);
    expect(c.workspace_id).toBe(ws.id);
    expect(c.phone).toBeNull();
    expect(c.company_name).toBeNull();
    expect(c.lead_score).toBeNull();
    expect(c.score_band).toBeNull();
    expect(c.tags).toEqual([]);
    expect(c.event_attendances).toEqual([]);
    expect(c.custom_fields).toEqual({});
    expect(c.whatsapp_deliverability).toBe('unknown');
    expect(c).not.toHaveProperty('block_source');
    expect(c).not.toHaveProperty('email_consent_state');
  });

  it('stores every writable field with its type', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const body = {
      phone: '+442071838750',
      email: 'all@example.com',
      avatar_url: 'https://a.example/x.png',
      notes: 'n',
      lifecycle_stage: 'customer',
      source: 'import',
      company_name: 'Acme',
      vat_number: 'GB1',
      job_title: 'CTO',
      industry: 'Tools',
      company_website: 'https://acme.example',
      annual_revenue: 1234.5,
      employee_count: 42,
      currency_preference: 'EUR',
      address_line1: 'l1',
      address_line2: 'l2',
      city: 'London',
      state: 'LDN',
      country: 'UK',
      postal_code: 'N1',
      gender: 'prefer_not_to_say',
      date_of_birth: '1990-02-28',
      language: 'en-GB',
      source_page_url: 'https://p',
      source_page_title: 't',
      referrer: 'r',
      user_agent: 'ua',
      affiliate: 'aff',
      utm_source: 's',
      utm_medium: 'm',
      utm_campaign: 'c',
      utm_term: 't',
      utm_content: 'ct',
      gclid: 'g',
      fbclid: 'f',
      lead_score: 75,
      linkedin_url: 'https://li',
      facebook_url: 'https://fb',
      instagram_handle: '@i',
      twitter_handle: '@t',
      custom_fields: { plan: 'pro', seats: 3 },
    };
    const c = await createContact(ws, { ...body, name: 'Grace Hopper' });
    for (const [k, v] of Object.entries(body)) expect(c[k], k).toEqual(v);
    expect(c.score_band).toBe('hot');
    const read = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(Object.fromEntries(Object.entries(c).filter(([k]) => k !== 'duplicate')));
  });

  it('rejects unknown fields, wrong types, bad enums and out-of-bound values', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const cases: [Record<string, unknown>, string][] = [
      [{ email: 'x@example.com', nickname: 'x' }, 'property nickname should not exist'],
      [{ name: 'x'.repeat(201) }, 'name'],
      [{ first_name: 'x'.repeat(101) }, 'first_name'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: `${'x'.repeat(250)}@example.com` }, 'email'],
      [{ phone: '1'.repeat(33) }, 'phone'],
      [{ lifecycle_stage: 'vip' }, 'lifecycle_stage'],
      [{ source: 'fax' }, 'source'],
      [{ gender: 'x' }, 'gender'],
      [{ block_state: 'maybe' }, 'block_state'],
      [{ employee_count: -1 }, 'employee_count'],
      [{ employee_count: 2147483648 }, 'employee_count'],
      [{ employee_count: 1.5 }, 'employee_count'],
      [{ annual_revenue: '100' }, 'annual_revenue'],
      [{ date_of_birth: '1990-02-30' }, 'date_of_birth'],
      [{ notes: 'x'.repeat(5001) }, 'notes'],
      [{ vat_number: 'x'.repeat(41) }, 'vat_number'],
      [{ postal_code: 'x'.repeat(21) }, 'postal_code'],
      [{ source_page_url: 'x'.repeat(2049) }, 'source_page_url'],
      [{ tags: [''] }, 'tags'],
      [{ tags: ['x'.repeat(101)] }, 'tags'],
      [{ groups: 'vip' }, 'groups'],
      [{ custom_fields: [1] }, 'custom_fields'],
    ];
    for (const [body, field] of cases) {
      const res = await ws.api('POST', '/v1/contacts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.statusCode).toBe(400);
      expect(res.body.error).toBe('Bad Request');
      expect(res.body.message.join(' '), JSON.stringify(body)).toContain(field);
    }
  });

  it('normalizes the phone to E.164 with the workspace default country and rejects unparseable phones', async () => {
    const ws = await makeWorkspace({ default_country: 'GB' }, { pipeline: false });
    const c = await createContact(ws, { phone: '020 7183 8750' });
    expect(c.phone).toBe('+442071838750');
    const bad = await ws.api('POST', '/v1/contacts', { phone: 'call me' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toEqual(['phone must be a valid phone number']);
    const badPatch = await ws.api('PATCH', `/v1/contacts/${c.id}`, { phone: '12' });
    expect(badPatch.status).toBe(400);
  });

  it('stores and matches email trimmed and lower-cased', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const a = await createContact(ws, { email: '  Mixed.Case@Example.COM ' });
    expect(a.email).toBe('mixed.case@example.com');
    const b = await createContact(ws, { email: 'MIXED.case@example.com', city: 'Paris' });
    expect(b.duplicate).toBe(true);
    expect(b.id).toBe(a.id);
  });

  it('keeps name and first/last name in sync', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'n@example.com', name: 'Ada  Augusta Lovelace' });
    expect([c.first_name, c.last_name]).toEqual(['Ada', 'Augusta Lovelace']);
    const single = await ws.api('PATCH', `/v1/contacts/${c.id}`, { name: 'Cher' });
    expect([single.body.name, single.body.first_name, single.body.last_name]).toEqual(['Cher', 'Cher', null]);
    const last = await ws.api('PATCH', `/v1/contacts/${c.id}`, { last_name: 'Bono' });
    expect([last.body.name, last.body.first_name, last.body.last_name]).toEqual(['Cher Bono', 'Cher', 'Bono']);
    const first = await ws.api('PATCH', `/v1/contacts/${c.id}`, { first_name: 'Sonny' });
    expect(first.body.name).toBe('Sonny Bono');
    const both = await ws.api('PATCH', `/v1/contacts/${c.id}`, { name: 'Wins Here', first_name: 'Ignored' });
    expect([both.body.name, both.body.first_name, both.body.last_name]).toEqual(['Wins Here', 'Wins', 'Here']);
  });

  it('takes tag and group names and answers ids; names auto-create once, case-insensitively', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 't@example.com', tags: ['VIP', 'vip', 'Lead'], groups: ['Newsletter'] });
    expect(c.tags).toHaveLength(2);
    for (const id of [...c.tags, ...c.groups]) expect(id).toMatch(uuidRe);
    const tags = await ws.api('GET', '/v1/tags?sort=name');
    expect(tags.body.data.map((t: any) => [t.name, t.contact_count])).toEqual([
      ['Lead', 1],
      ['VIP', 1],
    ]);
    expect(new Set(c.tags)).toEqual(new Set(tags.body.data.map((t: any) => t.id)));
    const groups = await ws.api('GET', '/v1/contact-groups');
    expect(groups.body.data[0].id).toBe(c.groups[0]);
  });

  it('ignores lead_score while lead scoring is on and stores it when off', async () => {
    const on = await makeWorkspace({ lead_scoring: true }, { pipeline: false });
    const a = await createContact(on, { email: 's@example.com', lead_score: 50 });
    expect(a.lead_score).toBeNull();
    expect(a.score_band).toBeNull();
    const off = await makeWorkspace({ lead_scoring: false }, { pipeline: false });
    const b = await createContact(off, { email: 's@example.com', lead_score: 50 });
    expect([b.lead_score, b.score_band]).toEqual([50, 'warm']);
    const cold = await off.api('PATCH', `/v1/contacts/${b.id}`, { lead_score: 29.5 });
    expect(cold.body.score_band).toBe('cold');
    const hot = await off.api('PATCH', `/v1/contacts/${b.id}`, { lead_score: 70 });
    expect(hot.body.score_band).toBe('hot');
  });

  it('records blocks: global cannot be lifted, import source without a blacklist match', async () => {
    const ws = await makeWorkspace({}, { pipeline: false });
    const c = await createContact(ws, { email: 'b@example.com', block_state: 'workspace' });
    expect(c.block_state).toBe('workspace');
    const lifted = await ws.api('PATCH', `/v1/contacts/${c.id}`, { block_state: 'none' });
    expect(lifted.body.block_state).toBe('none');
    const global = await ws.api('PATCH', `/v1/contacts/${c.id}`, { block_state: 'global' });
    expect(global.body.block_state).toBe('global');
    const lift = await ws.api('PATCH', `/v1/contacts/${c.id}`, { block_state: 'none' });
    expect(lift.status).toBe(400);
    expect(lift.body.message).toBe('Global blocks cannot be lifted through the API');
    const viaPost = await ws.api('POST', '/v1/contacts', { email: 'b@example.com', block_state: 'workspace' });
    expect(viaPost.status).toBe(400);
    const still = await ws.api('GET', `/v1/contacts/${c.id}`);
    expect(still.body.block_state).toBe('global');
  });
});
