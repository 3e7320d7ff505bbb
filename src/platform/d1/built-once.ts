/**
 * `build` memoised per key object (a module-constant SQL fragment, a table): statements and
 * conditions made from one come in a handful of variants, each built once per isolate.
 */
export function builtOnce<K extends object, V>(build: (key: K) => V): (key: K) => V {
  const built = new WeakMap<K, V>();
  return (key) => {
    let value = built.get(key);
    if (value === undefined) built.set(key, (value = build(key)));
    return value;
  };
}
