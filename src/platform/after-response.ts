/**
 * Runs a task once the response has been handed back (the next macrotask), kept
 * alive by the request's `waitUntil`: work that must not delay or compete with
 * producing the answer. Given a read's `admission` (src/platform/auth.ts), the
 * task runs only when the request was admitted.
 */
export const afterResponse =
  (ctx: Pick<ExecutionContext, 'waitUntil'>, admission?: Promise<unknown>) =>
  (task: () => Promise<unknown>): void =>
    ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 0)).then(() => admission).then(task, () => undefined));
