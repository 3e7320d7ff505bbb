import { SCALAR_FIELDS, SCALAR_NAMES } from '../fields';

/**
 * The CSV columns of contact imports and exports. A file names contact write fields, `tags` and
 * `groups` (names separated by `|`) and `custom_fields.<key>`; the read-only columns an export
 * writes (id, consent states, timestamps) are accepted on import and skipped, so an exported file
 * imports as it is.
 */
export const LABEL_SEPARATOR = '|';
export const CUSTOM_PREFIX = 'custom_fields.';
const MAX_CUSTOM_KEY = 100;

const WRITE_COLUMNS = ['email', 'phone', ...SCALAR_NAMES, 'block_state', 'tags', 'groups'];
export const READ_ONLY_COLUMNS = ['id', 'whatsapp_consent_state', 'email_consent_state', 'created_at', 'updated_at'];
const KNOWN = new Set([...WRITE_COLUMNS, ...READ_ONLY_COLUMNS]);
const SKIPPED = new Set(READ_ONLY_COLUMNS);
const NUMERIC = new Set(SCALAR_NAMES.filter((name) => SCALAR_FIELDS[name].kind === 'number' || SCALAR_FIELDS[name].kind === 'integer'));

/** The export's columns before the custom fields, and after them. */
export const EXPORT_LEADING = ['id', ...WRITE_COLUMNS];
export const EXPORT_TRAILING = ['whatsapp_consent_state', 'email_consent_state', 'created_at', 'updated_at'];

export const isKnownColumn = (column: string) => {
  if (KNOWN.has(column)) return true;
  if (!column.startsWith(CUSTOM_PREFIX)) return false;
  const key = column.slice(CUSTOM_PREFIX.length);
  return key.length > 0 && key.length <= MAX_CUSTOM_KEY;
};

/**
 * Spreadsheet formula injection (OWASP "CSV Injection"): a cell starting with `=`, `+`, `-`, `@`, a tab
 * or a carriage return is read by spreadsheet programs as a formula (`=HYPERLINK(...)` planted through a
 * public form's name). An export writes such a cell with a single quote in front, which those programs
 * show as text and do not display; the stored value is unchanged. A cell whose value already starts
 * with quotes before one of those characters gets one more, and an import takes exactly one quote off
 * a cell that starts with quotes before one of them, so an exported file imports as the same values.
 */
const FORMULA_START = /^'*[=+\-@\t\r]/;
const QUOTED_FORMULA_START = /^'+[=+\-@\t\r]/;
export const neutralizedCell = (cell: string): string => (FORMULA_START.test(cell) ? `'${cell}` : cell);
export const restoredCell = (cell: string): string => (QUOTED_FORMULA_START.test(cell) ? cell.slice(1) : cell);

/**
 * A custom field's cell: a JSON number, boolean, object or array reads as that value (an export
 * writes those as JSON), anything else as the text itself.
 */
function customValue(cell: string): unknown {
  if (!/^\s*([-\d[{]|true\b|false\b)/.test(cell)) return cell;
  try {
    const value = JSON.parse(cell);
    return value === null || typeof value === 'string' ? cell : value;
  } catch {
    return cell;
  }
}

/** A custom field's value as its cell: text as it is, other values as JSON (read back by `customValue`). */
export const customCell = (value: unknown): string =>
  value === undefined || value === null ? '' : typeof value === 'string' ? value : JSON.stringify(value);

/**
 * A data row as the `POST /v1/contacts` body it stands for: a cell's formula guard is taken off
 * (`restoredCell`), an empty cell sends nothing (it never clears a stored value), numeric fields read
 * as numbers, label cells split on `|`.
 */
export function rowToBody(columns: readonly string[], cells: readonly string[]): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  let custom: Record<string, unknown> | null = null;
  columns.forEach((column, i) => {
    const cell = restoredCell(cells[i] ?? '');
    if (cell === '' || SKIPPED.has(column)) return;
    if (column.startsWith(CUSTOM_PREFIX)) {
      // Null prototype: a `__proto__` key is a plain key here, as it is in a JSON body.
      custom ??= Object.create(null) as Record<string, unknown>;
      custom[column.slice(CUSTOM_PREFIX.length)] = customValue(cell);
    } else if (column === 'tags' || column === 'groups') {
      body[column] = cell
        .split(LABEL_SEPARATOR)
        .map((name) => name.trim())
        .filter(Boolean);
    } else if (NUMERIC.has(column as never) && cell.trim() !== '' && Number.isFinite(Number(cell))) {
      body[column] = Number(cell);
    } else {
      body[column] = cell;
    }
  });
  if (custom) body.custom_fields = custom;
  return body;
}
