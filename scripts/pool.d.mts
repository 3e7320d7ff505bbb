export type PoolOutcome<T, R> = { item: T; ok: true; value: R } | { item: T; ok: false; error: unknown };
export function runPool<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<PoolOutcome<T, R>[]>;
