// Loading an NDJSON or CSV file of accounts of any size (`admin apply`, `admin accounts … --file`):
// read as a stream, applied in chunks that each commit on their own, set-based within a chunk. A
// re-run after an interruption finds the committed chunks' accounts unchanged and skips them, so it
// continues where the last run stopped; the same rules as one account apply (upsertAccount).
import { asSql, type Database, type DbClient } from '../platform/db';
import { ValidationError, type FieldError } from '../platform/errors';
import { issueToFieldError } from '../platform/validation';
import * as bulk from './accounts-bulk.repository';
import { upsertAccount } from './accounts.use-cases';
import { AccountSpec, IMPORT_ONLY_FIELDS, type AccountSpecT } from './apply.schemas';
import { lineError, readRecords, type FileRecord } from './record-file';
import { checkSupplierReferences } from './suppliers.use-cases';
import { ADMIN_STATES, freePlatformNumbers } from '../account-import/process-lifecycle';

const DEFAULT_CHUNK = 2_000;
/** A chunk that fails names at most this many of its bad lines. */
const MAX_REPORTED_ERRORS = 20;

export interface AccountFileReport {
  file: string;
  format: 'ndjson' | 'csv';
  /** Records read and committed. */
  accounts: number;
  created: number;
  updated: number;
  /** Already as the file describes them: skipped (a re-run after an interruption skips what was committed). */
  unchanged: number;
  chunks: number;
  /** Wall time so far, in whole milliseconds (printed as 12.345, not 12.345678901234). */
  seconds: number;
}

export interface AccountFileOptions {
  /** Set by the account commands (`accounts import --file`): every record gets this state. */
  state?: AccountSpecT['state'];
  chunkSize?: number;
  onChunk?: (report: AccountFileReport, lastLine: number) => void;
}

interface Item {
  line: number;
  a: AccountSpecT;
}
type Counts = Pick<AccountFileReport, 'created' | 'updated' | 'unchanged'>;

export async function applyAccountFile(
  db: Database,
  file: string,
  format: 'ndjson' | 'csv',
  opts: AccountFileOptions = {},
): Promise<AccountFileReport> {
  const started = performance.now();
  const report: AccountFileReport = {
    file,
    format,
    accounts: 0,
    created: 0,
    updated: 0,
    unchanged: 0,
    chunks: 0,
    seconds: 0,
  };
  const size = opts.chunkSize ?? DEFAULT_CHUNK;
  let chunk: FileRecord[] = [];
  const flush = async () => {
    const counts = await applyChunk(db, parseChunk(chunk, opts.state));
    report.created += counts.created;
    report.updated += counts.updated;
    report.unchanged += counts.unchanged;
    report.accounts += chunk.length;
    report.chunks += 1;
    report.seconds = secondsSince(started);
    opts.onChunk?.(report, chunk.at(-1)!.line);
    chunk = [];
  };
  for await (const record of readRecords(file, format)) {
    chunk.push(record);
    if (chunk.length >= size) await flush();
  }
  if (chunk.length > 0) await flush();
  if (report.created + report.updated > 0) await bulk.analyzeAccountTables(db.pool);
  report.seconds = secondsSince(started);
  return report;
}

/** Every record checked before anything is written; a chunk with bad lines fails as a whole. */
function parseChunk(records: FileRecord[], state: AccountSpecT['state'] | undefined): Item[] {
  const errors: FieldError[] = [];
  const items: Item[] = [];
  for (const { line, record } of records) {
    const withState = state === undefined ? record : withCommandState(record, state, line, errors);
    const parsed = AccountSpec.safeParse(withState, { reportInput: true });
    if (parsed.success) items.push({ line, a: parsed.data });
    else
      errors.push(...parsed.error.issues.map(issueToFieldError).map((e) => ({ ...e, attr: `line ${line}.${e.attr}` })));
  }
  if (errors.length > 0)
    throw new ValidationError(errors.slice(0, MAX_REPORTED_ERRORS), `${errors[0]!.attr}: ${errors[0]!.detail}`);
  return items;
}

function withCommandState(record: unknown, state: AccountSpecT['state'], line: number, errors: FieldError[]): unknown {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return record;
  const given = (record as { state?: unknown }).state;
  if (given !== undefined && given !== state) {
    errors.push({
      attr: `line ${line}.state`,
      code: 'invalid_choice',
      detail: `This command sets state "${state}"; the line says "${typeof given === 'string' ? given : JSON.stringify(given)}".`,
    });
  }
  return { ...record, state };
}

async function applyChunk(db: Database, items: Item[]): Promise<Counts> {
  return db.prisma.$transaction(
    async (tx) => {
      const firstLine = new Map<string, number>();
      for (const { line, a } of items) if (!firstLine.has(a.import_supplier)) firstLine.set(a.import_supplier, line);
      await checkSupplierReferences(
        tx,
        [...firstLine].map(([code, line]) => ({ code, attr: `line ${line}.import_supplier` })),
      );
      return applyItems(tx, items);
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
}

async function applyItems(tx: DbClient, items: Item[]): Promise<Counts> {
  const sql = asSql(tx);
  const counts: Counts = { created: 0, updated: 0, unchanged: 0 };
  // A key seen twice in a chunk, a move of an open statement period or a change of recorded Stripe
  // customer takes the one-account path in file order.
  const seen = new Set<string>();
  const first: Item[] = [];
  const one: Item[] = [];
  for (const item of items) {
    const key = bulk.accountKey(item.a.import_supplier, item.a.external_account_number);
    (seen.has(key) ? one : first).push(item);
    seen.add(key);
  }
  const existing = await bulk.lockExistingAccounts(
    sql,
    first.map((i) => ({ s: i.a.import_supplier, e: i.a.external_account_number })),
  );
  const restate: Item[] = [];
  const create: Item[] = [];
  for (const item of first) {
    const found = existing.get(bulk.accountKey(item.a.import_supplier, item.a.external_account_number));
    const verdict = decide(item, found);
    if (verdict === 'one') one.unshift(item);
    else if (verdict === 'unchanged') counts.unchanged += 1;
    else (verdict === 'create' ? create : restate).push(item);
    if (verdict === 'restate') counts[found ? 'updated' : 'created'] += 1;
  }
  const ids = await bulk.upsertProcesses(
    sql,
    [...restate, ...create].map(({ a }) => ({
      s: a.import_supplier,
      e: a.external_account_number,
      ...ADMIN_STATES[a.state],
    })),
  );
  await createAccounts(tx, create, ids);
  counts.created += create.length;
  for (const item of one.sort((x, y) => x.line - y.line)) {
    await atLine(item.line, () => upsertAccount(tx, item.a));
    counts.updated += 1;
  }
  return counts;
}

/** What one record does to its account; refusals are the one-account rules' (upsertAccount). */
function decide(
  { line, a }: Item,
  found: bulk.ExistingAccount | undefined,
): 'unchanged' | 'restate' | 'create' | 'one' {
  if (found?.accountId != null) {
    if (a.state !== 'imported')
      throw lineError(
        line,
        'account_already_imported',
        'An imported account cannot go back to an earlier state.',
        'state',
      );
    if (a.platform_account_number !== undefined && a.platform_account_number !== found.platformAccountNumber) {
      throw lineError(
        line,
        'platform_account_number_mismatch',
        `The account is already imported as ${found.platformAccountNumber}.`,
        'platform_account_number',
      );
    }
    if (a.account_created_at !== undefined && a.account_created_at.getTime() !== found.createdAt?.getTime()) {
      throw lineError(
        line,
        'account_created_at_mismatch',
        'The account creation time cannot change.',
        'account_created_at',
      );
    }
    // Moving the open period or recording another Stripe customer takes the one-account path.
    const moves = a.open_statement_from !== undefined && a.open_statement_from !== found.openFrom;
    const recordsCustomer = a.stripe_customer !== undefined && a.stripe_customer !== found.stripeCustomerId;
    return moves || recordsCustomer ? 'one' : 'unchanged';
  }
  if (a.state === 'imported') return 'create';
  for (const field of IMPORT_ONLY_FIELDS) {
    if (a[field] !== undefined)
      throw lineError(line, 'only_for_imported_accounts', `${field} is only allowed with state "imported".`, field);
  }
  return found?.state === ADMIN_STATES[a.state].state ? 'unchanged' : 'restate';
}

async function createAccounts(tx: DbClient, create: Item[], ids: Map<string, number>): Promise<void> {
  const sql = asSql(tx);
  const given = create.flatMap((i) => (i.a.platform_account_number === undefined ? [] : [i]));
  const taken = await bulk.takenPlatformAccountNumbers(
    sql,
    given.map((i) => i.a.platform_account_number!),
  );
  const used = new Set<string>();
  for (const { line, a } of given) {
    if (taken.has(a.platform_account_number!) || used.has(a.platform_account_number!)) {
      throw lineError(
        line,
        'platform_account_number_in_use',
        `${a.platform_account_number} is already the number of another account.`,
        'platform_account_number',
      );
    }
    used.add(a.platform_account_number!);
  }
  const generated = await freePlatformNumbers(asSql(tx), create.length - given.length, used);
  const now = new Date();
  await bulk.insertAccounts(
    sql,
    create.map(({ a }) => {
      const createdAt = a.account_created_at ?? now;
      return {
        processId: ids.get(bulk.accountKey(a.import_supplier, a.external_account_number))!,
        platformAccountNumber: a.platform_account_number ?? generated.pop()!,
        createdAt: createdAt.toISOString(),
        openFrom: a.open_statement_from ?? createdAt.toISOString().slice(0, 10),
        stripeCustomerId: a.stripe_customer ?? null,
      };
    }),
  );
}

async function atLine<T>(line: number, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    throw new ValidationError(
      err.errors.map((e) => ({ ...e, attr: `line ${line}.${e.attr}` })),
      err.message,
      err.code,
    );
  }
}

function secondsSince(started: number): number {
  return Math.round(performance.now() - started) / 1000;
}
