import { stringify } from 'csv-stringify/sync';
import { CUSTOM_PREFIX, customCell, EXPORT_LEADING, EXPORT_TRAILING, LABEL_SEPARATOR, neutralizedCell } from '../bulk/columns';

/** A contact as an export page reads it: its row, and its tag and group names (JSON arrays). */
export type ExportedContact = Record<string, unknown> & { custom_fields: string; tag_names: string; group_names: string };

/** The export's header: the contact's fields, its custom field keys as `custom_fields.<key>`, then its consent states and timestamps. */
export const exportColumns = (customKeys: string[]) => [...EXPORT_LEADING, ...customKeys.map((k) => `${CUSTOM_PREFIX}${k}`), ...EXPORT_TRAILING];

const cell = (value: unknown): string => (value === null || value === undefined ? '' : String(value));

const columnValue = (contact: ExportedContact, custom: Record<string, unknown>, column: string): string => {
  if (column === 'tags') return (JSON.parse(contact.tag_names) as string[]).join(LABEL_SEPARATOR);
  if (column === 'groups') return (JSON.parse(contact.group_names) as string[]).join(LABEL_SEPARATOR);
  if (column.startsWith(CUSTOM_PREFIX))
    return customCell(Object.hasOwn(custom, column.slice(CUSTOM_PREFIX.length)) ? custom[column.slice(CUSTOM_PREFIX.length)] : null);
  return cell(contact[column]);
};

/**
 * Rows of an export part as CSV text (RFC 4180 quoting, CRLF), the header first when asked. Every data
 * cell a spreadsheet would read as a formula is written behind a single quote (`neutralizedCell`); header
 * cells are column names, none of which starts so.
 */
export function exportRows(columns: string[], contacts: ExportedContact[], withHeader: boolean): string {
  const rows = contacts.map((contact) => {
    const custom = JSON.parse(contact.custom_fields || '{}') as Record<string, unknown>;
    return columns.map((column) => neutralizedCell(columnValue(contact, custom, column)));
  });
  // A lone carriage return is a record end to CSV readers (the import's among them): a cell holding one is quoted, as one with a line feed is.
  return stringify(withHeader ? [columns, ...rows] : rows, { record_delimiter: 'windows', quoted_match: /\r/ });
}
