// A CSV file's header, checked before anything is sent: a column every item of the kind needs that the
// header lacks would fail every line, one request at a time, so the file is refused as a whole first.
import { closeSync, openSync, readSync } from 'node:fs';
import { parse } from 'csv-parse/sync';
import { UsageError } from './client-errors';
import type { Kind } from './item-kinds';

/** Per kind, the columns each item needs; a list is "one of these". */
const REQUIRED: Record<Kind, (string | string[])[]> = {
  notes: [['body', 'document_paths']],
  transactions: ['transaction_id', 'transaction_date', 'amount', 'type'],
  statements: ['statement_id', 'bill_period_from_date', 'bill_period_to_date'],
  'payment-instructions': ['vendor', 'type', ['reference', 'instruction_reference']],
};
const ACCOUNT = ['import_supplier', 'external_account_number'];

/** A header row is a line of names; past this the file is not a CSV of items. */
const MAX_HEADER_BYTES = 64 * 1024;

/** Throws a UsageError naming every missing column; an empty file has nothing to check. */
export function checkCsvHeader(file: string, kind: Kind): void {
  const columns = new Set(headerOf(file));
  if (columns.size === 0) return;
  const missing = [...ACCOUNT, ...REQUIRED[kind]]
    .filter((need) => (Array.isArray(need) ? !need.some((c) => columns.has(c)) : !columns.has(need)))
    .map((need) => (Array.isArray(need) ? need.join(' or ') : need));
  if (missing.length > 0) {
    throw new UsageError(
      `${file}: the CSV header has no ${missing.join(', ')} column, which every ${kind} line needs; nothing was sent`,
    );
  }
}

function headerOf(file: string): string[] {
  const buffer = Buffer.alloc(MAX_HEADER_BYTES);
  const fd = openSync(file, 'r');
  let read: number;
  try {
    read = readSync(fd, buffer, 0, MAX_HEADER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  const text = buffer.subarray(0, read).toString('utf8');
  const end = text.indexOf('\n');
  if (end === -1 && read === MAX_HEADER_BYTES) throw new UsageError(`${file}: the CSV header is over 64 KiB`);
  const rows: string[][] = parse(end === -1 ? text : text.slice(0, end), { bom: true, relax_column_count: true });
  return (rows[0] ?? []).map((c) => c.trim());
}
