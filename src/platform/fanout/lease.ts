/**
 * How long the fan-out holds a running campaign without writing. Every batch a page or chunk
 * message writes anyway (a targeting page's, a chunk's claim and its settle) moves `lease_until` to
 * this far ahead, so a live fan-out never lets it lapse: the longest step between two of them is
 * one chunk's hand-off (an email chunk's eligibility read, 50 renders, one provider batch call and
 * one settle batch; a WhatsApp chunk's conversations batch, the provider taking 50 messages at
 * once and one settle batch), a few seconds against a real provider (a whole page takes under
 * 0.2 s through the sandbox providers, bench/results.md; a page may also wait behind the nine
 * others of its queue batch, which run in turn). Lapsed, the fan-out lost its message or its
 * worker, or its message waits in the queue: the `campaign-schedules` sweep (every minute)
 * re-drives the campaign, so it moves again within two minutes.
 */
export const LEASE_MS = 60_000;

/** The lease a write of the fan-out (or the launch) at `now` holds the campaign by. */
export const leaseFrom = (now: string) => new Date(Date.parse(now) + LEASE_MS).toISOString();
