/**
 * Template placeholders: positional `{{1}}`, `{{2}}`, ... or named
 * `{{first_name}}` (Meta's two parameter formats). Names are lower-case
 * letters, digits and underscores, as Meta allows them.
 */
const PLACEHOLDER = /\{\{\s*([a-z0-9_]{1,64})\s*\}\}/g;

/** Placeholder names in order of first appearance. */
export function placeholdersOf(text: string): string[] {
  const seen: string[] = [];
  for (const m of text.matchAll(PLACEHOLDER)) if (!seen.includes(m[1])) seen.push(m[1]);
  return seen;
}

export const isPositional = (name: string) => /^[1-9]\d*$/.test(name);

/** The text with every placeholder replaced by its value (all values must be present). */
export function fill(text: string, values: Record<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? values[name] : whole));
}

/** Problems of a template text's placeholders: positional ones must run 1..n without gaps and not mix with named ones. */
export function placeholderProblem(field: string, text: string): string | null {
  const names = placeholdersOf(text);
  const positional = names.filter(isPositional);
  if (positional.length && positional.length !== names.length)
    return `${field}: placeholders are either all positional ({{1}}) or all named ({{name}})`;
  const numbers = positional.map(Number).sort((a, b) => a - b);
  if (numbers.some((n, i) => n !== i + 1)) return `${field}: positional placeholders must run {{1}}, {{2}}, ... without gaps`;
  return null;
}
