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
  main { max-width: 420px; margin: 12vh auto 0; background: #fff; border-radius: 12px; padding: 32px; box-shadow: 0 2px 12px rgba(20, 30, 50, .08); }
  h1 { font-size: 20px; margin: 0 0 4px; }
  .amount { font-size: 34px; font-weight: 650; margin: 16px 0 24px; letter-spacing: -.5px; }
  .muted { color: #5b6475; font-size: 14px; }
  .state { display: inline-block; padding: 2px 10px; border-radius: 999px; font-size: 13px; font-weight: 600; }
  .pending { background: #e8f0fe; color: #1a56c4; } .paid { background: #e6f4ea; color: #1e7b34; }
  .expired, .cancelled { background: #f1f1f1; color: #555; }
  .test { margin-bottom: 16px; padding: 8px 12px; border-radius: 8px; background: #fff4d6; color: #7a5500; font-size: 14px; }
  button { font: inherit; width: 100%; padding: 14px; border: 0; border-radius: 8px; background: #1a56c4; color: #fff; font-size: 17px; font-weight: 600; cursor: pointer; }
  button:hover { background: #1546a0; }
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

/** The hosted page of a link in any state; a pending sandbox link gets the Pay button (a plain form post, no JavaScript). */
export function paymentPage(row: PaymentRequestRow, opts: { payable: boolean }): string {
  const title = row.title ?? 'Payment request';
  const amount = formatAmount(row.amountCents, row.currency);
  const test = row.testMode ? '<div class="test">Test mode: authorise only, no real money moves.</div>' : '';
  const label = { pending: 'Pending', paid: 'Paid', expired: 'Expired', cancelled: 'Cancelled' }[row.status];
  let action = '';
  if (row.status === 'pending' && opts.payable) {
    action = `<form method="post"><button type="submit">Pay ${escapeText(amount)}</button></form>
<p class="muted">Payable until ${escapeText(new Date(row.expiresAt).toUTCString())}.</p>`;
  } else if (row.status === 'paid') {
    action = `<p>Paid on ${escapeText(new Date(row.paidAt ?? row.updatedAt).toUTCString())}. Thank you.</p>`;
  } else {
    action = `<p>${escapeText(MESSAGES[row.status])}</p>`;
  }
  return layout(
    `${title}: ${label}`,
    `${test}<span class="state ${row.status}">${label}</span>
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
