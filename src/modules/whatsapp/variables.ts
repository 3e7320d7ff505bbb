import { VARIABLE_FIELDS, type RecipientContact } from '../contacts';

/**
 * Campaign variables: one value per body placeholder, where a value may
 * reference contact fields, `{{contact.first_name}}` or
 * `{{contact.custom_fields.<key>}}`, with an optional fallback used when the
 * field is empty: `{{contact.first_name|there}}`.
 */
const TOKEN = /\{\{\s*contact\.([A-Za-z0-9_]+(?:\.[A-Za-z0-9_\-. ]{1,100})?)\s*(?:\|([^}]*))?\}\}/g;

/** Problems of the campaign's variables against the template's placeholders. */
export function variableProblems(variables: Record<string, string>, placeholders: string[]): string[] {
  const problems: string[] = [];
  for (const name of placeholders) if (!Object.hasOwn(variables, name)) problems.push(`variables: missing a value for placeholder {{${name}}}`);
  for (const [name, value] of Object.entries(variables)) {
    if (!placeholders.includes(name)) problems.push(`variables.${name}: the template has no placeholder {{${name}}}`);
    for (const m of value.matchAll(TOKEN)) {
      const field = m[1].trim();
      if (!field.startsWith('custom_fields.') && !(VARIABLE_FIELDS as readonly string[]).includes(field)) {
        problems.push(`variables.${name}: unknown contact field "${field}" (one of ${VARIABLE_FIELDS.join(', ')}, custom_fields.<key>)`);
      }
    }
  }
  return problems;
}

/**
 * The variables with the contact's fields filled in; a placeholder whose value comes out empty is named in `empty`.
 * Names are own keys only (`__proto__` is a placeholder or custom field name like any other).
 */
export function personalize(variables: Record<string, string>, contact: RecipientContact): { values: Record<string, string>; empty: string[] } {
  let custom: Record<string, unknown> | null = null;
  const field = (path: string): string => {
    if (path.startsWith('custom_fields.')) {
      custom ??= JSON.parse(contact.custom_fields || '{}') as Record<string, unknown>;
      const key = path.slice('custom_fields.'.length);
      const v = Object.hasOwn(custom, key) ? custom[key] : null;
      return v === null || v === undefined ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v);
    }
    return (contact as Record<string, string | null>)[path] ?? '';
  };
  const empty: string[] = [];
  const values = Object.fromEntries(
    Object.entries(variables).map(([name, template]) => {
      const value = template
        .replace(TOKEN, (_, path: string, fallback: string | undefined) => field(path.trim()).trim() || (fallback ?? '').trim())
        .trim();
      if (!value) empty.push(name);
      return [name, value];
    }),
  );
  return { values, empty };
}
