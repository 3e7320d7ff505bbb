import type { PaymentRequestRow } from './schema';

const escapeText = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);

export function formatAmount(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

const STYLE = `
  body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; background: #f4f5f7; color: #1d2330; }
  main { max-width: 420px; margin: 12vh auto 0; background: #fff; border-radius: 12px; padding: 32px; box-shadow: 0 2px 12px rgba(20, 30, 50, .08); overflow-wrap: anywhere; }
  @media (max-width: 480px) { main { margin: 16px 12px; padding: 24px 20px; } }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .payee { margin: 12px 0 4px; color: #3e4655; }
  .amount { font-size: 34px; font-weight: 650; margin: 16px 0 24px; letter-spacing: -.5px; }
  .muted { color: #5b6475; font-size: 14px; }
  .state { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 13px; font-weight: 600; }
  .pending { background: #e8f0fe; color: #1a56c4; } .paid { background: #e6f4ea; color: #1e7b34; }
  .expired, .cancelled { background: #f1f1f1; color: #555; }
  .test { margin: 0 0 16px; padding: 8px 12px; border-radius: 8px; background: #fff4d6; color: #6b4a00; font-size: 14px; border: 1px solid #e8c66a; }
  .badge { display: inline-block; margin-right: 6px; padding: 1px 8px; border-radius: 999px; background: #6b4a00; color: #fff; font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
  button { font: inherit; width: 100%; padding: 14px; border: 0; border-radius: 8px; background: #1a56c4; color: #fff; font-size: 17px; font-weight: 600; cursor: pointer; }
  button:hover { background: #1546a0; }
  button:focus-visible { outline: 3px solid #1d2330; outline-offset: 2px; }
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeText(title)}</title>
<style>${STYLE}</style>
</head>
<body><main>${body}</main></body>
</html>`;
}

const MESSAGES: Record<PaymentRequestRow['status'], string> = {
  pending: 'Awaiting payment',
  paid: 'Paid',
  expired: 'This payment link has expired.',
  cancelled: 'This payment link was cancelled.',
};

/**
 * The payer's locale for dates: the first language of `Accept-Language` (by
 * weight) that `Intl` supports, else `en`.
 */
export function payerLocale(acceptLanguage: string | null | undefined): string {
  const ranked = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';');
      const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find(Boolean);
      return { tag: tag.trim(), q: q === undefined ? 1 : Number(q), i };
    })
    .filter((l) => l.tag && l.tag !== '*' && l.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const { tag } of ranked) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf(tag);
      if (supported) return supported;
    } catch {
      // Not a language tag: the next one.
    }
  }
  return 'en';
}

/** An instant as the payer reads it (`4. Dezember 2026 um 20:25 UTC` for `de-DE`), in the workspace's zone, with the exact instant in `datetime`. */
export function readableDate(iso: string, locale: string, timeZone: string): string {
  const at = new Date(iso);
  let text: string;
  try {
    text = new Intl.DateTimeFormat(locale, {
      year: 'numeric',
      month: 'long',
      day: 'numeric',
      hour: 'numeric',
      minute: '2-digit',
      timeZone,
      timeZoneName: 'short',
    }).format(at);
  } catch {
    text = new Intl.DateTimeFormat(locale, { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' }).format(at);
  }
  const lang = locale === 'en' || locale.startsWith('en-') ? '' : ` lang="${escapeText(locale)}"`;
  return `<time datetime="${escapeText(at.toISOString())}"${lang}>${escapeText(text)}</time>`;
}

export type PageOptions = {
  /** Whether the page itself takes the payment (the sandbox's Pay button). */
  payable: boolean;
  /** Who is paid: the workspace's name. */
  payee: string;
  /** The sandbox serves the link: nothing real is charged. */
  sandbox: boolean;
  /** From the request's `Accept-Language`. */
  locale: string;
  /** The workspace's time zone, for the dates. */
  timeZone: string;
};

/** The hosted page of a link in any state; a pending sandbox link gets the Pay button (a plain form post, no JavaScript). */
export function paymentPage(row: PaymentRequestRow, opts: PageOptions): string {
  const title = row.title ?? 'Payment request';
  const amount = formatAmount(row.amountCents, row.currency);
  const date = (iso: string) => readableDate(iso, opts.locale, opts.timeZone);
  const test =
    opts.sandbox || row.testMode
      ? `<p class="test"><strong class="badge">Test mode</strong> ${
          opts.sandbox ? 'This is a test payment page: no card is charged and no real money moves.' : 'Authorise only: no real money moves.'
        }</p>`
      : '';
  const label = { pending: 'Pending', paid: 'Paid', expired: 'Expired', cancelled: 'Cancelled' }[row.status];
  let action = '';
  if (row.status === 'pending' && opts.payable) {
    action = `<form method="post"><button type="submit">Pay ${escapeText(amount)}</button></form>
<p class="muted">Payable until ${date(row.expiresAt)}.</p>`;
  } else if (row.status === 'paid') {
    action = `<p>Paid on ${date(row.paidAt ?? row.updatedAt)}. Thank you.</p>`;
  } else {
    action = `<p>${escapeText(MESSAGES[row.status])}</p>`;
  }
  return layout(
    `${title}: ${label}`,
    `${test}<span class="state ${row.status}">${label}</span>
<p class="payee">Payment to <strong>${escapeText(opts.payee)}</strong></p>
<h1>${escapeText(title)}</h1>
<div class="amount">${escapeText(amount)} <span class="muted">${escapeText(row.currency)}</span></div>
${action}`,
  );
}

export function messagePage(title: string, message: string): string {
  return layout(title, `<h1>${escapeText(title)}</h1><p class="muted">${escapeText(message)}</p>`);
}

/** Pages hold no script and load nothing from elsewhere; the form posts back to this origin only. */
export const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
