/**
 * Runs `work` over `items` with at most `limit` at once, in order of start. Every item runs
 * whatever happens to the others: the answer lists each item's outcome, `{item, ok, value}` or
 * `{item, ok: false, error}`, in the items' order.
 */
export async function runPool(items, limit, work) {
  const outcomes = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        outcomes[i] = { item: items[i], ok: true, value: await work(items[i]) };
      } catch (error) {
        outcomes[i] = { item: items[i], ok: false, error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return outcomes;
}
