// `validate <kind> <file>`: every line checked offline by the very schemas the API parses with, one
// item at a time as if it were sent alone; failures go to failed.ndjson in the same form `send`
// writes them. Nothing is sent, so duplicates against what the service already holds are not seen.
import { closeSync, writeSync } from 'node:fs';
import path from 'node:path';
import { notesRequestSchema } from '../../shared/notes/note.schemas';
import { CreatePaymentInstructionRequest } from '../../shared/payment-instructions/payment-instruction.schemas';
import type { FieldError } from '../../shared/platform/errors';
import { parseOrThrow } from '../../shared/platform/validation';
import { statementsRequestSchema } from '../../shared/statements/statement.schemas';
import { parseTransactionImport } from '../../shared/transactions/transaction.validation';
import { defineCommand } from '../cli/command';
import { FORMAT, JSON_OUTPUT, RUNS_DIR, runsDirOf } from '../cli/common-options';
import { EXIT, UsageError } from '../client-errors';
import { formatOf, readEntries, type InputEntry } from '../input-reader';
import { markRepeats, tooManyKeys } from '../item-identity';
import { isKind, KIND_SPECS, KINDS, type Kind, type RunKind } from '../item-kinds';
import { validateAccountItem } from '../accounts/account-validate';
import { makePrivateDir, openPrivate } from '../private-files';
import { runStamp } from '../run-journal';
import { jsonLine, writeOut } from '../terminal-text';

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

export const validateCommand = defineCommand({
  name: 'validate',
  args: '<kind> <file>',
  summary: "check a file offline with the service's schemas; writes failed.ndjson",
  details: [`kinds: ${KINDS.join(', ')}, accounts`],
  options: {
    journal: { type: 'string', arg: 'DIR', help: 'where failed.ndjson goes (default: a new directory in --runs-dir)' },
    ...FORMAT,
    ...RUNS_DIR,
    ...JSON_OUTPUT,
  },
  async action({ positionals, values }) {
    const [kind, file] = positionals;
    if (!(isKind(kind) || kind === 'accounts') || !file || positionals.length > 2)
      throw new UsageError(`validate takes a kind (${KINDS.join(', ')}, accounts) and one file`);
    const stamp = runStamp(new Date());
    const dir = path.resolve(values.journal ?? path.join(runsDirOf(values), `validate-${kind}-${stamp}`));
    const { items, failed } = await writeFailures(kind, file, formatOf(file, values.format), dir);
    const summary = { event: 'summary', kind, input: path.resolve(file), items, failed, journal: dir };
    writeOut(
      values.json
        ? jsonLine(summary)
        : `validated ${items} items of ${file}: ${failed} invalid (see ${dir}/failed.ndjson)\n`,
    );
    return failed > 0 ? EXIT.itemsFailed : EXIT.ok;
  },
});

/** Checks every line, writing each failing one's first problem to `dir`/failed.ndjson. */
async function writeFailures(kind: RunKind, file: string, format: ReturnType<typeof formatOf>, dir: string) {
  makePrivateDir(dir);
  const out = openPrivate(path.join(dir, 'failed.ndjson'), 'w');
  let failed = 0;
  let items = 0;
  for await (const entry of markRepeats(kind, readEntries(file, format), tooManyKeys)) {
    items++;
    const problems = entry.problem
      ? [entry.problem]
      : kind === 'accounts'
        ? validateAccountItem(entry.item!)
        : validateItem(kind, entry.item!);
    const first = problems[0];
    if (first) {
      failed++;
      writeSync(
        out,
        jsonLine({
          line: entry.line,
          ...accountOf(entry),
          code: first.code,
          attr: first.attr,
          detail: first.detail,
          // An account can have many faults at once: all of them, as the service would answer.
          ...(kind === 'accounts' ? { errors: problems.slice(0, 200) } : {}),
        }),
      );
    }
  }
  closeSync(out);
  return { items, failed };
}

const accountOf = (entry: InputEntry) => ({
  import_supplier:
    typeof entry.item?.import_supplier === 'string' ? entry.item.import_supplier.slice(0, 128) : undefined,
  external_account_number:
    typeof entry.item?.external_account_number === 'string'
      ? entry.item.external_account_number.slice(0, 128)
      : undefined,
});
