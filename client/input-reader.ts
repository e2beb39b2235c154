// Reads a migration file item by item, never whole: NDJSON (one JSON object per line) or CSV with a
// header row (nested fields in JSON cells). Every item keeps its source line number, which is what
// the journal, the Idempotency-Keys and the result files are keyed on.
import { parse } from 'csv-parse';
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { LineSet } from './line-set';
import { readNdjson } from './ndjson';

export type InputFormat = 'ndjson' | 'csv';

export interface AccountRef {
  import_supplier: string;
  external_account_number: string;
}

interface LineProblem {
  code: string;
  attr: string;
  detail: string;
}

/** One source line: an item with its account, or a problem found before anything is sent. */
export interface InputEntry {
  line: number;
  item?: Record<string, unknown>;
  account?: AccountRef;
  problem?: LineProblem;
}

/** The service's own bound on one request body; a longer line could never be sent. */
const MAX_LINE_CHARS = 5 * 1024 * 1024;
/** AccountReference's bound in shared/platform/fields.ts. */
const MAX_ACCOUNT_FIELD = 128;

export function formatOf(file: string, explicit?: string): InputFormat {
  if (explicit === 'csv' || explicit === 'ndjson') return explicit;
  return /\.csv$/i.test(file) ? 'csv' : 'ndjson';
}

/** One pass over the bytes: the SHA-256 that resume checks and the line count that progress shows. */
export async function scanFile(file: string): Promise<{ checksum: string; lines: number }> {
  const hash = createHash('sha256');
  let lines = 0;
  let last = 10;
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    hash.update(chunk);
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
    if (chunk.length > 0) last = chunk[chunk.length - 1]!;
  }
  if (last !== 10) lines++;
  return { checksum: `sha256:${hash.digest('hex')}`, lines };
}

export function readEntries(file: string, format: InputFormat): AsyncIterable<InputEntry> {
  return format === 'csv' ? readCsv(file) : readNdjsonEntries(file);
}

async function* readNdjsonEntries(file: string): AsyncIterable<InputEntry> {
  for await (const read of readNdjson(file, MAX_LINE_CHARS)) {
    if ('value' in read) yield toEntry(read.line, read.value);
    else {
      const code = read.problem === 'too_long' ? 'line_too_long' : 'parse_error';
      yield { line: read.line, problem: { code, attr: 'non_field_errors', detail: read.detail } };
    }
  }
}

/**
 * csv-parse reports every error it meets, and one broken line can hold many (each stray quote is one),
 * so a line is reported once, by its first error: one outcome per source line, as for NDJSON.
 */
async function* readCsv(file: string): AsyncIterable<InputEntry> {
  const skipped: InputEntry[] = [];
  const reported = new LineSet();
  const once = (entry: InputEntry): InputEntry[] => {
    if (reported.has(entry.line)) return [];
    reported.add(entry.line);
    return [entry];
  };
  const parser = createReadStream(file).pipe(
    parse({
      columns: true,
      info: true,
      bom: true,
      skip_empty_lines: true,
      max_record_size: MAX_LINE_CHARS,
      // A broken record (wrong cell count, bad quoting) is that line's failure, not the file's.
      skip_records_with_error: true,
    }),
  );
  parser.on('skip', (err: Error & { lines?: number }) => {
    skipped.push(
      ...once({
        line: err.lines ?? 0,
        problem: { code: 'parse_error', attr: 'non_field_errors', detail: `Not a CSV record: ${err.message}` },
      }),
    );
  });
  for await (const { record, info } of parser as AsyncIterable<{
    record: Record<string, string>;
    info: { lines: number };
  }>) {
    yield* skipped.splice(0);
    yield* once(toEntry(info.lines, fromCsvRecord(record)));
  }
  yield* skipped.splice(0);
}

// CSV cells are text; these fields are booleans or integers in the API. Anything else stays a string,
// so amounts stay exact decimal strings and "00123" stays an account number.
const BOOLEAN_FIELDS = new Set(['is_pinned', 'is_archived', 'use_for_scheduled_payments']);
const INTEGER_FIELDS = new Set(['gross_amount']);

/** An empty cell is an omitted field; a cell starting with `[` or `{` is a nested JSON value. */
function fromCsvRecord(record: Record<string, string>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (const [field, cell] of Object.entries(record)) {
    if (cell === '') continue;
    if (/^\s*[[{]/.test(cell)) item[field] = parseJsonCell(cell);
    else if (BOOLEAN_FIELDS.has(field) && /^(true|false)$/i.test(cell)) item[field] = cell.toLowerCase() === 'true';
    else if (INTEGER_FIELDS.has(field) && /^-?\d{1,15}$/.test(cell)) item[field] = Number(cell);
    else if (cell === 'null' && (INTEGER_FIELDS.has(field) || field === 'issued_date' || field === 'valid_from'))
      item[field] = null;
    else item[field] = cell;
  }
  return item;
}

function parseJsonCell(cell: string): unknown {
  try {
    return JSON.parse(cell);
  } catch {
    // Sent as text: the service then names the field that should have been a list or object.
    return cell;
  }
}

/** A parsed line (or a result record's `record`) as an entry: its item and account, or why it has none. */
export function toEntry(line: number, value: unknown): InputEntry {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      line,
      problem: { code: 'invalid', attr: 'non_field_errors', detail: 'Each line must be one JSON object.' },
    };
  }
  const item = value as Record<string, unknown>;
  for (const field of ['import_supplier', 'external_account_number'] as const) {
    const v = item[field];
    if (typeof v !== 'string' || v === '' || v.length > MAX_ACCOUNT_FIELD) {
      const detail =
        typeof v === 'string' && v !== '' ? `At most ${MAX_ACCOUNT_FIELD} characters.` : 'This field is required.';
      return {
        line,
        item,
        problem: { code: typeof v === 'string' && v !== '' ? 'max_length' : 'required', attr: field, detail },
      };
    }
  }
  return {
    line,
    item,
    account: {
      import_supplier: item.import_supplier as string,
      external_account_number: item.external_account_number as string,
    },
  };
}
