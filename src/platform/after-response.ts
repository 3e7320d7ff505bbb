/**
 * Runs a task once the response has been handed back (the next macrotask), kept
 * alive by the request's `waitUntil`: work that must not delay or compete with
 * producing the answer.
 */
export const afterResponse =
  (ctx: Pick<ExecutionContext, 'waitUntil'>) =>
  (task: () => Promise<unknown>): void =>
    ctx.waitUntil(new Promise((resolve) => setTimeout(resolve, 0)).then(task));
