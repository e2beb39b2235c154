// Creating the account from its staged data: the work the queued job runs inside its transaction (the
// job, its result row and the process endpoint are declared elsewhere). Everything happens under the
// lock of the process row, after a savepoint: a refusal or a dry run rolls back to it, so neither keeps
// anything but the process's status and event.
import type { Sql } from '../platform/db';
import { AppError, ValidationError } from '../platform/errors';
import { resolveDocumentLocation, wholeSecond } from '../platform/fields';
import { parseOrThrow } from '../platform/validation';
import { insertNotes, type NewNote } from '../notes/note.public';
import { insertTransactions, type NewTransaction } from '../transactions/transaction.public';
import { toTransactionData } from '../transactions/transaction-data';
import { EnergyAccountSchema, ledgerOf, meterPointsOf, type EnergyAccount } from './energy-account';
import { AlreadyImportedError, checkAgainstDatabase, migrationNotOngoing } from './account-import.use-cases';
import * as creation from './create-account.repository';
import { creationInProgress } from './account-bounds';
import { drawPlatformNumber, latestErrorOf, transition, transitionAnswering } from './process-lifecycle';

/** A STRIPE instruction the job verified with the vendor: what to store as its vendor details. */
export interface VerifiedInstruction {
  /** The instruction's index in the staged account's `payment_instructions`. */
  index: number;
  vendorDetails: Record<string, unknown>;
}

export interface CreateAccountInput {
  supplierCode: string;
  externalAccountNumber: string;
  /** The process call's `operations_team_name`, in place of the staged one when given. */
  operationsTeamName?: string;
  dryRun: boolean;
  /** Stored with each transaction, as the transactions endpoint stores its request's id. */
  resultId: string;
  /** Object storage bucket of notes' and statements' documents (config DOCUMENT_BUCKET). */
  documentBucket: string;
  /** A v2 dry run's account (it is not staged); otherwise the process's staged payload is created. */
  payload?: unknown;
  /** Every STRIPE instruction of the staged account, verified (see stripeInstructionsOf). */
  verifiedInstructions?: VerifiedInstruction[];
}

export type CreateAccountOutcome =
  | { outcome: 'created'; external_account_number: string; platform_account_number: string }
  | { outcome: 'dry_run_succeeded'; external_account_number: string }
  /** A 400 (or the 404 of a process with nothing staged): the error the process call answers. */
  | { outcome: 'refused'; error: AppError };

const DAY_MS = 86_400_000;
const nextDay = (isoDate: string) => new Date(Date.parse(`${isoDate}T00:00:00Z`) + DAY_MS).toISOString().slice(0, 10);
const minDate = (dates: string[]) =>
  dates.reduce<string | undefined>((m, d) => (m === undefined || d < m ? d : m), undefined);

/**
 * A creation job takes the process (the lifecycle's `start`: IN_PROGRESS, held by the job's request,
 * event STARTED), in one statement committed on its own before the creation's transaction, so the
 * status endpoints show the running job; answers the staged account's STRIPE instructions, which the
 * job verifies with the vendor first. Undefined when the table refuses the move (the process is
 * unknown, cancelled, held by another job, not this schedule's any more, or has its account).
 */
export async function markCreationStarted(
  db: Sql,
  input: Pick<CreateAccountInput, 'supplierCode' | 'externalAccountNumber' | 'resultId'> & { schedule?: string },
  now: Date,
): Promise<{ stripeInstructions: creation.StagedStripeInstruction[] } | undefined> {
  // The staged instructions come back from the statement that takes the process (one round trip).
  const moved = await transitionAnswering(db, {
    process: { supplierCode: input.supplierCode, externalAccountNumber: input.externalAccountNumber },
    event: 'start',
    now,
    holder: input.resultId,
    schedule: input.schedule,
    withInstructions: true,
  });
  if (moved === undefined) return undefined;
  return { stripeInstructions: stripeInstructionsOf({ payment_instructions: moved.instructions }) };
}

/** The STRIPE instructions of an account (validated by the API when staged or scheduled), by index. */
export function stripeInstructionsOf(account: Record<string, unknown>): creation.StagedStripeInstruction[] {
  const list = Array.isArray(account.payment_instructions) ? (account.payment_instructions as unknown[]) : [];
  return list.flatMap((item, index) => {
    const i = item as { vendor?: unknown; type?: unknown; reference?: unknown };
    return i.vendor === 'STRIPE' ? [{ index, type: i.type as never, reference: String(i.reference) }] : [];
  });
}

/**
 * Creates the account of a staged process inside the caller's transaction `tx`, at `now`: its
 * number, statement periods (the open one from the day after last_statement_closing_date), current
 * and historical transactions, notes, statements, payment instructions and meter points; then marks
 * the process PROCESSED (IMPORTED for the v1 reads) with an event. The staged data is checked again
 * first, with what may have changed since it was staged (a product removed, a meter point taken, the
 * supplier paused): a refusal marks the process ERRORED and is returned, not thrown. A dry run does
 * all of it, then keeps nothing but the process's DRY_RUN_* status and event. A process that already
 * has its account is refused with account_import_process_already_imported: creating twice makes one.
 */
export async function createAccount(tx: Sql, input: CreateAccountInput, now: Date): Promise<CreateAccountOutcome> {
  const process = await lockProcess(tx, input);
  if (input.dryRun || !process || process.heldBy === input.resultId)
    return createLockedAccount(tx, process, input, now);
  await markCreationStarted(tx, input, now);
  return createLockedAccount(tx, await lockProcess(tx, input), input, now);
}

/**
 * The process row, locked until the transaction ends (creations of one account run one at a time).
 * Without `locks.wait` a row another transaction holds throws at once (lock_not_available).
 */
export function lockProcess(
  tx: Sql,
  input: Pick<CreateAccountInput, 'supplierCode' | 'externalAccountNumber'>,
  locks: { wait: boolean } = { wait: true },
): Promise<creation.LockedProcess | undefined> {
  return creation.lockProcess(tx, input.supplierCode, input.externalAccountNumber, locks);
}

/** 400 import_process_does_not_exist: nothing was staged for the account (the contract's code). */
export const importProcessDoesNotExist = () =>
  ValidationError.single(
    'non_field_errors',
    'import_process_does_not_exist',
    'No staged account data for this import supplier and external account number: stage it with create-or-update first.',
  );

/**
 * createAccount, for a process the caller has locked already (lockProcess, in the same transaction).
 * With `deferred` (a real run in a group's transaction), the account's rows past the account itself
 * (statement periods, transactions, notes, statements, instructions) are added to it for the group to
 * insert in one statement per table (insertAccountRows) before it commits, and no savepoint is set: a
 * refusal is decided before anything is written but the account and its meter points, which the
 * refusal deletes again.
 */
export async function createLockedAccount(
  tx: Sql,
  process: creation.LockedProcess | undefined,
  input: CreateAccountInput,
  now: Date,
  deferred?: AccountRows[],
): Promise<CreateAccountOutcome> {
  if (!process || (process.payload === null && input.payload === undefined)) {
    return { outcome: 'refused', error: importProcessDoesNotExist() };
  }
  if (process.platformAccountNumber !== null) {
    return {
      outcome: 'refused',
      error: new AlreadyImportedError(input.externalAccountNumber, process.platformAccountNumber),
    };
  }
  // A real run creates only while its job holds the process (the lifecycle's start).
  if (!input.dryRun && process.heldBy !== input.resultId) return { outcome: 'refused', error: creationInProgress() };
  const inGroup = deferred !== undefined && !input.dryRun;
  if (!inGroup) await tx.query('SAVEPOINT create_account');
  let created: { platformAccountNumber: string; team: string | null };
  try {
    const { rows, ...account } = await createFromStaged(tx, process, input, now);
    if (inGroup) deferred.push(rows);
    else await insertAccountRows(tx, [rows]);
    created = account;
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    if (!inGroup) await tx.query('ROLLBACK TO SAVEPOINT create_account');
    // A dry run answers as the real run would and writes nothing, the process's status included.
    if (!input.dryRun) await endHold(tx, process.id, input, now, { event: 'refuse', error: err });
    return { outcome: 'refused', error: err };
  }
  if (input.dryRun) {
    await tx.query('ROLLBACK TO SAVEPOINT create_account');
    // Its number is not kept: creation draws another, so the answer carries none.
    return { outcome: 'dry_run_succeeded', external_account_number: input.externalAccountNumber };
  }
  if (!inGroup) await tx.query('RELEASE SAVEPOINT create_account');
  await endHold(tx, process.id, input, now, {
    event: 'create',
    platformAccountNumber: created.platformAccountNumber,
    team: created.team,
  });
  return {
    outcome: 'created',
    external_account_number: input.externalAccountNumber,
    platform_account_number: created.platformAccountNumber,
  };
}

/** Ends the job's hold on the process: created (PROCESSED) or refused (ERRORED with latest_error). */
export async function endHold(
  tx: Sql,
  processId: number,
  input: Pick<CreateAccountInput, 'resultId'>,
  now: Date,
  end: { event: 'create'; platformAccountNumber: string; team: string | null } | { event: 'refuse'; error: AppError },
): Promise<void> {
  if (end.event === 'refuse') {
    await transition(tx, {
      process: { id: processId },
      event: 'refuse',
      now,
      holder: input.resultId,
      error: latestErrorOf(end.error, input.resultId),
    });
    return;
  }
  await transition(tx, {
    process: { id: processId },
    event: 'create',
    now,
    holder: input.resultId,
    data: { platform_account_number: end.platformAccountNumber },
    set: { operationsTeamName: end.team },
  });
}

/** The rows of a new account past the account itself, inserted by insertAccountRows. */
export interface AccountRows {
  accountId: number;
  resultId: string;
  periods: creation.NewStatementPeriod[];
  transactions: NewTransaction[];
  notes: NewNote[];
  statements: creation.NewStatementRow[];
  instructions: creation.NewInstruction[];
}

/** The rows of the accounts created in one transaction: one statement per table (notes: per account). */
export async function insertAccountRows(tx: Sql, accounts: AccountRows[]): Promise<void> {
  if (accounts.length === 0) return;
  await creation.insertStatementPeriods(tx, accounts);
  await insertTransactions(
    tx,
    accounts.map((a) => ({ accountId: a.accountId, resultId: a.resultId, rows: a.transactions })),
  );
  for (const a of accounts) await insertNotes(tx, a.accountId, a.notes);
  await creation.insertStatements(tx, accounts);
  await creation.insertPaymentInstructions(tx, accounts);
}

/**
 * Checks the staged account again and inserts the account with its meter points; answers the rest of
 * its rows. A refusal (ValidationError) leaves nothing written: a meter point lost to another account
 * deletes the account and the meter points it claimed before refusing.
 */
async function createFromStaged(
  tx: Sql,
  process: creation.LockedProcess,
  input: CreateAccountInput,
  now: Date,
): Promise<{ platformAccountNumber: string; team: string | null; rows: AccountRows }> {
  if (process.supplierStatus !== 'Ongoing') throw migrationNotOngoing(input.supplierCode, process.supplierStatus);
  const staged = parseOrThrow(EnergyAccountSchema, input.payload ?? process.payload);
  const a: EnergyAccount =
    input.operationsTeamName === undefined ? staged : { ...staged, operations_team_name: input.operationsTeamName };
  const errors = await checkAgainstDatabase(tx, a);
  if (errors.length > 0) throw new ValidationError(errors, `${errors[0]!.attr}: ${errors[0]!.detail}`);

  // Meter points with the account: one live account per meter point and supplier, decided by the primary
  // key, so an account created meanwhile by another transaction makes this one refuse instead of doubling it.
  const points = meterPointsOf(a);
  const { platformAccountNumber, accountId, claimed } = await insertAccount(
    tx,
    process.id,
    input.supplierCode,
    points,
    now,
  );
  const lost = points.filter((p) => !claimed.has(p.identifier));
  if (lost.length > 0) {
    await creation.deleteNewAccount(tx, accountId);
    throw new ValidationError(
      lost.map((p) => ({
        attr: p.path.join('.'),
        code: 'supply_point_already_on_live_account',
        detail: `Meter point ${p.identifier} is already supplied on another live account of this supplier.`,
      })),
      'A meter point is already supplied on another live account of this supplier.',
    );
  }

  const ledger = ledgerOf(a);
  const rows: AccountRows = {
    accountId,
    resultId: input.resultId,
    periods: statementPeriodsOf(a, ledger, now),
    transactions: [...ledger.historical, ...ledger.current].map((t) => ({
      transactionId: t.transaction_id,
      transactionDate: t.transaction_date,
      originalDate: null,
      description: null,
      submitted: toTransactionData(t),
    })),
    notes: notesOf(a, now, input.documentBucket, process.documentRoot),
    statements: (a.statements ?? []).map((s) => ({
      ...s,
      storage_location:
        s.statement_path === undefined
          ? null
          : resolveDocumentLocation(input.documentBucket, process.documentRoot, s.statement_path),
    })),
    instructions: instructionsOf(a, input.verifiedInstructions ?? []),
  };
  return { platformAccountNumber, team: a.operations_team_name ?? null, rows };
}

/**
 * The account's statement periods: a closed one up to the last statement's closing date (from its
 * earliest historical item), and the open one from the day after it (or from the earliest current item).
 */
function statementPeriodsOf(
  a: EnergyAccount,
  ledger: ReturnType<typeof ledgerOf>,
  now: Date,
): creation.NewStatementPeriod[] {
  const openFrom = ledger.closingDate
    ? nextDay(ledger.closingDate)
    : (minDate([...ledger.current.map((t) => t.transaction_date), now.toISOString().slice(0, 10)]) as string);
  const periods = [{ startsOn: openFrom, endsOn: null as string | null, isOpen: true }];
  if (ledger.closingDate) {
    const closedFrom = minDate([
      ...ledger.historical.map((t) => t.transaction_date),
      ...(a.statements ?? []).map((s) => s.bill_period_from_date),
      ledger.closingDate,
    ]) as string;
    periods.unshift({ startsOn: closedFrom, endsOn: ledger.closingDate, isOpen: false });
  }
  return periods;
}

function notesOf(a: EnergyAccount, now: Date, bucket: string, documentRoot: string): NewNote[] {
  return (a.notes ?? []).map((n) => ({
    body: n.body ?? null,
    documents: (n.document_paths ?? []).map(({ document_path }) => ({
      document_path,
      location: resolveDocumentLocation(bucket, documentRoot, document_path),
    })),
    // Whole seconds, as the notes endpoint stores them.
    createdAt: wholeSecond(n.created_at ?? now),
    isPinned: n.is_pinned ?? false,
    unpinAt: n.unpin_at ? wholeSecond(n.unpin_at) : null,
    isArchived: n.is_archived ?? false,
    externalId: n.external_id ?? null,
  }));
}

/**
 * The account's payment instructions as stored: the last one listed is the active one (an account has
 * at most one), the earlier ones are kept inactive. A STRIPE one must come verified by the job.
 */
function instructionsOf(a: EnergyAccount, verified: VerifiedInstruction[]): creation.NewInstruction[] {
  const list = a.payment_instructions ?? [];
  return list.map((p, i) => {
    const check = verified.find((v) => v.index === i);
    if (p.vendor === 'STRIPE' && !check) {
      throw new Error(`payment_instructions.${i}: a STRIPE instruction must be verified with the vendor first`);
    }
    return {
      vendor: p.vendor,
      reference: p.reference,
      type: p.type,
      vendorDetails: check?.vendorDetails ?? {},
      isActive: i === list.length - 1,
      validFrom: p.valid_from ?? null,
      useForScheduledPayments: p.use_for_scheduled_payments ?? null,
    };
  });
}

/**
 * Inserts the account under a platform account number no account has, as `admin` allocates them: `A-`
 * and 32 random bits, inserted only when no account has it (inside the transaction; a concurrent insert
 * of the same number fails on the unique index rather than producing a duplicate), with its meter points.
 * A number is never reused: accounts are never deleted.
 */
async function insertAccount(
  tx: Sql,
  processId: number,
  supplierCode: string,
  points: { identifier: string; supplyType: string }[],
  now: Date,
): Promise<{ platformAccountNumber: string; accountId: number; claimed: Set<string> }> {
  // Bounded: a free number is all but certain on the first draw; ten taken in a row means something is wrong.
  for (let attempt = 0; attempt < 10; attempt++) {
    const platformAccountNumber = drawPlatformNumber();
    const inserted = await creation.insertAccountWithMeterPoints(
      tx,
      { processId, platformAccountNumber, supplierCode, now },
      points,
    );
    if (inserted) return { platformAccountNumber, ...inserted };
  }
  throw new Error('no free platform account number after 10 draws');
}
