import { Buffer } from 'node:buffer';
import { parse } from 'csv-parse/sync';
import { ContactErrors } from '../errors';
import { isKnownColumn } from '../bulk/columns';

export const IMPORT_MAX_BYTES = 10 * 1024 * 1024;
export const IMPORT_MAX_ROWS = 100_000;
/** Rows per write batch: the batch upsert's own bound. */
export const CHUNK_ROWS = 100;

export type Delimiter = ',' | ';';

/** What processing needs of a checked file: its delimiter, header and where each chunk of rows starts. */
export type CheckedFile = { delimiter: Delimiter; columns: string[]; totalRows: number; chunkOffsets: number[] };

const BOM = [0xef, 0xbb, 0xbf];
const RECORD_DELIMITERS = ['\r\n', '\n', '\r'];
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const parseOptions = (delimiter: Delimiter) => ({ delimiter, record_delimiter: RECORD_DELIMITERS, skip_empty_lines: true });

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** `,` or `;`: whichever the header row holds more of outside quotes (`,` for a single column). */
function detectDelimiter(text: string): Delimiter {
  let quoted = false;
  let commas = 0;
  let semicolons = 0;
  for (const ch of text) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && (ch === '\n' || ch === '\r')) break;
    else if (!quoted && ch === ',') commas++;
    else if (!quoted && ch === ';') semicolons++;
  }
  return semicolons > commas ? ';' : ',';
}

/** Whether the bytes are UTF-8, and what the text tells before parsing: empty or not, and the delimiter. */
function readText(bytes: Uint8Array): { empty: boolean; delimiter: Delimiter } {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw ContactErrors.importNotUtf8();
  }
  return { empty: text.trim() === '', delimiter: detectDelimiter(text) };
}

const PAST_LIMIT = Symbol('past the row limit');

/**
 * The whole file checked before anything is stored: UTF-8 (a BOM is skipped), RFC 4180 quoting,
 * every row as wide as the header, a header of known and distinct columns, 1 to 100,000 data rows
 * (empty lines are skipped and not counted). No row is kept: each is counted and dropped as it is
 * parsed, noting where every chunk of `CHUNK_ROWS` starts, and parsing stops past the row limit.
 */
export function checkImportFile(bytes: Uint8Array): CheckedFile {
  const { empty, delimiter } = readText(bytes);
  if (empty) throw ContactErrors.importEmpty();
  // The decoder drops a BOM from the text; the bytes keep it, and offsets count from the file's start.
  const start = BOM.every((b, i) => bytes[i] === b) ? BOM.length : 0;
  let columns: string[] | null = null;
  let totalRows = 0;
  let end = 0;
  let pastLimit = false;
  const chunkOffsets: number[] = [];
  try {
    parse(asBuffer(bytes.subarray(start)), {
      ...parseOptions(delimiter),
      on_record: (record: string[], context: { bytes: number }) => {
        if (!columns) columns = record.map((c) => c.trim());
        else {
          if (totalRows % CHUNK_ROWS === 0) chunkOffsets.push(start + end);
          if (++totalRows > IMPORT_MAX_ROWS) throw PAST_LIMIT;
        }
        end = context.bytes;
        return null;
      },
    });
  } catch (err) {
    if (err !== PAST_LIMIT) throw ContactErrors.importMalformed({ problem: (err as Error).message });
    pastLimit = true;
  }
  if (!columns) throw ContactErrors.importEmpty();
  checkHeader(columns);
  if (pastLimit) throw ContactErrors.importTooManyRows();
  if (totalRows === 0) throw ContactErrors.importEmpty();
  chunkOffsets.push(bytes.byteLength);
  return { delimiter, columns, totalRows, chunkOffsets };
}

function checkHeader(columns: string[]) {
  if (columns.some((c) => c === '')) throw ContactErrors.importBadHeader({ problem: 'a column has no name' });
  const twice = columns.find((c, i) => columns.indexOf(c) !== i);
  if (twice) throw ContactErrors.importBadHeader({ problem: `column "${twice}" is named twice` });
  const unknown = columns.filter((c) => !isKnownColumn(c));
  if (unknown.length) throw ContactErrors.importUnknownColumns({ columns: unknown.map((c) => `"${c.slice(0, 100)}"`).join(', ') });
}

/** The data rows of a slice of the file that starts and ends on row boundaries (chunk offsets). */
export function parseRows(bytes: Uint8Array, delimiter: Delimiter): string[][] {
  return parse(asBuffer(bytes), parseOptions(delimiter)) as string[][];
}
