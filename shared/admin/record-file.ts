// Reading a streamed admin file (NDJSON or CSV with a header) one record at a time, never whole: the
// platform team's account files run to hundreds of thousands of lines.
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { parse } from 'csv-parse';
import { ValidationError } from '../platform/errors';

export type RecordFormat = 'json' | 'ndjson' | 'csv';

/** Longest line (or CSV record) read; an account record is a few hundred bytes. */
const MAX_RECORD_CHARS = 64 * 1024;

export interface FileRecord {
  /** 1-based line of the file the record starts on (a CSV header is line 1). */
  line: number;
  record: unknown;
}

export function formatOf(path: string): RecordFormat | undefined {
  const extension = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase();
  if (extension === 'json') return 'json';
  if (extension === 'ndjson' || extension === 'jsonl') return 'ndjson';
  if (extension === 'csv') return 'csv';
  return undefined;
}

export function readRecords(path: string, format: 'ndjson' | 'csv'): AsyncIterable<FileRecord> {
  return format === 'csv' ? readCsv(path) : readNdjson(path);
}

async function* readNdjson(path: string): AsyncIterable<FileRecord> {
  const lines = createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Infinity });
  let line = 0;
  for await (const text of lines) {
    line += 1;
    if (text.trim() === '') continue;
    if (text.length > MAX_RECORD_CHARS)
      throw lineError(line, 'max_length', `The line is longer than ${MAX_RECORD_CHARS} characters.`);
    let record: unknown;
    try {
      record = JSON.parse(text);
    } catch (err) {
      throw lineError(line, 'parse_error', `Not valid JSON: ${(err as Error).message}`);
    }
    yield { line, record };
  }
}

/** Header names the fields; an empty cell is an absent field (CSV cannot tell "" from nothing). */
async function* readCsv(path: string): AsyncIterable<FileRecord> {
  const parser = createReadStream(path).pipe(
    parse({
      columns: true,
      bom: true,
      skip_empty_lines: true,
      max_record_size: MAX_RECORD_CHARS,
      info: true,
      trim: true,
    }),
  );
  try {
    for await (const { record, info } of parser as AsyncIterable<{
      record: Record<string, string>;
      info: { lines: number };
    }>) {
      yield { line: info.lines, record: Object.fromEntries(Object.entries(record).filter(([, v]) => v !== '')) };
    }
  } catch (err) {
    if (err instanceof ValidationError) throw err;
    const line = (err as { lines?: number }).lines ?? 0;
    throw lineError(line, 'parse_error', `Not valid CSV: ${(err as Error).message}`);
  }
}

export function lineError(line: number, code: string, detail: string, field?: string): ValidationError {
  return ValidationError.single(`line ${line}${field ? `.${field}` : ''}`, code, detail);
}
