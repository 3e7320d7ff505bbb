/**
 * Runs tasks at most `limit` at a time, starting them in the order they were handed in; a task
 * waiting for its turn has not started (nothing of it, a timeout included, runs before then).
 */
export function inFlight(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    // A finished task hands its place straight to the next one waiting, so `running` never passes the limit.
    if (running < limit) running++;
    else await new Promise<void>((resolve) => waiting.push(resolve));
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}
