// `validate <kind> <file>`: every line checked offline by the very schemas the API parses with, one
// item at a time as if it were sent alone; failures go to failed.ndjson in the same form `send`
// writes them. Nothing is sent, so duplicates against what the service already holds are not seen.
import { closeSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { ParsedArgs } from './cli-args';
import { EXIT, UsageError } from './client-errors';
import { formatOf, readEntries } from './input-reader';
import { isKind, KIND_SPECS, KINDS, type Kind } from './item-kinds';
import { notesRequestSchema } from '../shared/notes/note.schemas';
import { CreatePaymentInstructionRequest } from '../shared/payment-instructions/payment-instruction.schemas';
import type { FieldError } from '../shared/platform/errors';
import { parseOrThrow } from '../shared/platform/validation';
import { statementsRequestSchema } from '../shared/statements/statement.schemas';
import { parseTransactionImport } from '../shared/transactions/transaction.validation';
import { runsDirOf } from './send-command';
import { makePrivateDir, openPrivate } from './private-files';
import { jsonLine, writeOut } from './terminal-text';

const CHECKS: Record<Kind, (request: unknown) => unknown> = {
  notes: (r) => parseOrThrow(notesRequestSchema(1), r),
  statements: (r) => parseOrThrow(statementsRequestSchema(1), r),
  transactions: (r) => parseTransactionImport({ options: {}, request: r }),
  'payment-instructions': (r) => parseOrThrow(CreatePaymentInstructionRequest, r),
};

/** The field errors the service would answer, with attr made relative to the item. */
function validateItem(kind: Kind, item: Record<string, unknown>): FieldError[] {
  const { listField } = KIND_SPECS[kind];
  const { import_supplier, external_account_number, ...rest } = item;
  const request = listField ? { import_supplier, external_account_number, [listField]: [rest] } : item;
  try {
    CHECKS[kind](request);
    return [];
  } catch (err) {
    const errors = (err as { errors?: FieldError[] }).errors;
    if (!Array.isArray(errors)) throw err;
    const prefix = listField ? new RegExp(`^${listField}\\.0\\.?`) : /^$/;
    return errors.map((e) => ({ ...e, attr: e.attr.replace(prefix, '') || 'non_field_errors' }));
  }
}

export async function validateCommand({ positionals, values }: ParsedArgs): Promise<number> {
  const [kind, file] = positionals;
  if (!isKind(kind) || !file || positionals.length > 2)
    throw new UsageError(`validate takes a kind (${KINDS.join(', ')}) and one file`);
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const dir = path.resolve(values.journal ?? path.join(runsDirOf(values), `validate-${kind}-${stamp}`));
  makePrivateDir(dir);
  const out = openPrivate(path.join(dir, 'failed.ndjson'), 'w');
  let failed = 0;
  let items = 0;
  for await (const entry of readEntries(file, formatOf(file, values.format))) {
    items++;
    const account = {
      import_supplier:
        typeof entry.item?.import_supplier === 'string' ? entry.item.import_supplier.slice(0, 128) : undefined,
      external_account_number:
        typeof entry.item?.external_account_number === 'string'
          ? entry.item.external_account_number.slice(0, 128)
          : undefined,
    };
    const problems = entry.problem ? [entry.problem] : validateItem(kind, entry.item!);
    const first = problems[0];
    if (first) {
      failed++;
      writeSync(
        out,
        jsonLine({ line: entry.line, ...account, code: first.code, attr: first.attr, detail: first.detail }),
      );
    }
  }
  closeSync(out);
  const summary = { event: 'summary', kind, input: path.resolve(file), items, failed, journal: dir };
  writeOut(
    values.json
      ? jsonLine(summary)
      : `validated ${items} items of ${file}: ${failed} invalid (see ${dir}/failed.ndjson)\n`,
  );
  return failed > 0 ? EXIT.itemsFailed : EXIT.ok;
}
