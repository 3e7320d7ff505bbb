import type { Bindings } from '../env';

export type SweepResult = Record<string, number>;
export type Sweep = (env: Bindings) => Promise<SweepResult>;

const sweeps = new Map<string, Sweep>();

/** Each module with periodic work registers it here; cron runs all, the operator route runs one. */
export function registerSweep(name: string, sweep: Sweep): void {
  sweeps.set(name, sweep);
}

export const sweepNames = () => [...sweeps.keys()];
export const findSweep = (name: string) => sweeps.get(name);

/** Runs every sweep; one failing sweep does not stop the others. */
export async function runAllSweeps(env: Bindings): Promise<Record<string, SweepResult | { error: string }>> {
  const results: Record<string, SweepResult | { error: string }> = {};
  await Promise.all(
    [...sweeps].map(async ([name, sweep]) => {
      try {
        results[name] = await sweep(env);
      } catch (err) {
        console.error('sweep failed', name, err);
        results[name] = { error: err instanceof Error ? err.message : String(err) };
      }
    }),
  );
  return results;
}
