// Deterministic, realistic-looking contacts for the seed: names, unique emails
// and phones, companies, titles, places, lifecycle stages and a few tags.

const FIRST = [
  'James',
  'Mary',
  'Robert',
  'Patricia',
  'John',
  'Jennifer',
  'Michael',
  'Linda',
  'David',
  'Elizabeth',
  'William',
  'Barbara',
  'Richard',
  'Susan',
  'Joseph',
  'Jessica',
  'Thomas',
  'Sarah',
  'Carlos',
  'Karen',
  'Daniel',
  'Lisa',
  'Matthew',
  'Nancy',
  'Anthony',
  'Sofia',
  'Mark',
  'Ana',
  'Luis',
  'Emily',
  'Wei',
  'Priya',
  'Hiroshi',
  'Fatima',
  'Olga',
  'Mateo',
  'Chloe',
  'Noah',
  'Aisha',
  'Lucas',
  'Ingrid',
  'Omar',
  'Yuki',
  'Elena',
  'Pierre',
  'Giulia',
  'Sven',
  'Amara',
  'Diego',
  'Hannah',
];
const LAST = [
  'Smith',
  'Johnson',
  'Williams',
  'Brown',
  'Jones',
  'Garcia',
  'Miller',
  'Davis',
  'Rodriguez',
  'Martinez',
  'Hernandez',
  'Lopez',
  'Gonzalez',
  'Wilson',
  'Anderson',
  'Thomas',
  'Taylor',
  'Moore',
  'Jackson',
  'Martin',
  'Lee',
  'Perez',
  'Thompson',
  'White',
  'Harris',
  'Sanchez',
  'Clark',
  'Ramirez',
  'Lewis',
  'Robinson',
  'Walker',
  'Young',
  'Allen',
  'King',
  'Wright',
  'Scott',
  'Torres',
  'Nguyen',
  'Hill',
  'Flores',
  'Green',
  'Adams',
  'Nelson',
  'Baker',
  'Hall',
  'Rivera',
  'Campbell',
  'Mitchell',
  'Carter',
  'Roberts',
  'Kowalski',
  'Novak',
  'Schmidt',
  'Rossi',
  'Dubois',
  'Tanaka',
  'Kim',
  'Patel',
  'Singh',
  'Okafor',
  'Larsen',
  'Silva',
  'Costa',
  'Horvat',
  'Jensen',
  'Fischer',
  'Moreau',
  'Yamamoto',
  'Chen',
  'Ivanova',
];
const COMPANY_A = [
  'Acme',
  'Globex',
  'Initech',
  'Umbrella',
  'Stark',
  'Wayne',
  'Hooli',
  'Vandelay',
  'Soylent',
  'Cyberdyne',
  'Aperture',
  'Wonka',
  'Tyrell',
  'Massive',
  'Blue Sky',
  'Northwind',
  'Contoso',
  'Fabrikam',
  'Litware',
  'Tailspin',
  'Bluth',
  'Pied Piper',
  'Oscorp',
  'Gringotts',
  'Dunder',
];
const COMPANY_B = [
  'Labs',
  'Industries',
  'Holdings',
  'Logistics',
  'Foods',
  'Systems',
  'Consulting',
  'Media',
  'Partners',
  'Analytics',
  'Ventures',
  'Retail',
];
const TITLES = [
  'CEO',
  'CTO',
  'Head of Sales',
  'Account Executive',
  'Marketing Manager',
  'Operations Lead',
  'Engineer',
  'Designer',
  'Founder',
  'Buyer',
  'Office Manager',
  'Product Manager',
];
const PLACES = [
  ['New York', 'US'],
  ['Chicago', 'US'],
  ['Austin', 'US'],
  ['Seattle', 'US'],
  ['Toronto', 'CA'],
  ['London', 'GB'],
  ['Berlin', 'DE'],
  ['Madrid', 'ES'],
  ['Lisbon', 'PT'],
  ['Paris', 'FR'],
  ['Milan', 'IT'],
  ['Warsaw', 'PL'],
  ['Tokyo', 'JP'],
  ['Sydney', 'AU'],
  ['Mexico City', 'MX'],
  ['Sao Paulo', 'BR'],
];
const DOMAINS = ['gmail.com', 'outlook.com', 'yahoo.com', 'icloud.com', 'proton.me', 'fastmail.com'];
const AREA_CODES = [
  '212',
  '312',
  '415',
  '512',
  '617',
  '702',
  '713',
  '303',
  '404',
  '206',
  '305',
  '503',
  '602',
  '615',
  '704',
  '720',
  '801',
  '919',
  '971',
  '858',
];
const STAGES = ['lead', 'lead', 'lead', 'prospect', 'prospect', 'customer', 'inactive'];
export const TAG_NAMES = ['vip', 'newsletter', 'webinar-2026', 'trade-show', 'partner', 'churn-risk'];

/** mulberry32: a small seeded PRNG, so every run seeds the same data. */
function prng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (rand, list) => list[Math.floor(rand() * list.length)];

export const seedEmail = (i, first, last) => `${first}.${last}.${i}@${DOMAINS[i % DOMAINS.length]}`.toLowerCase();
/** Unique per index: 20 area codes times 8,000,000 subscriber numbers from 200-0000. */
export const seedPhone = (i) => `+1${AREA_CODES[i % AREA_CODES.length]}${String(2_000_000 + Math.floor(i / AREA_CODES.length)).padStart(7, '0')}`;

/** Custom field values, so `custom_fields.<key>` filters have data to find. */
const PLANS = ['free', 'starter', 'pro', 'gold'];

/** Contact `i` of the seed: created over the past year, oldest first. */
export function contactAt(i, total, tagIds, now = Date.parse('2026-11-01T00:00:00Z')) {
  const rand = prng(i + 1);
  const first = pick(rand, FIRST);
  const last = pick(rand, LAST);
  const [city, country] = pick(rand, PLACES);
  const hasPhone = rand() < 0.9;
  const hasEmail = !hasPhone || rand() < 0.9;
  const tags = tagIds.filter(() => rand() < 0.12);
  return {
    name: `${first} ${last}`,
    ...(hasPhone ? { phone: seedPhone(i) } : {}),
    ...(hasEmail ? { email: seedEmail(i, first, last) } : {}),
    ...(rand() < 0.7 ? { company_name: `${pick(rand, COMPANY_A)} ${pick(rand, COMPANY_B)}`, job_title: pick(rand, TITLES) } : {}),
    city,
    country,
    lifecycle_stage: pick(rand, STAGES),
    lead_score: Math.floor(rand() * 100),
    ...(tags.length ? { tag_ids: tags } : {}),
    ...(rand() < 0.6 ? { custom_fields: { plan: pick(rand, PLANS) } } : {}),
    created_at: new Date(now - (total - i) * 300_000).toISOString(),
  };
}
