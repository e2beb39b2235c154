// Importing transactions onto accounts, the worker's half: the work of a group of queued import
// requests, in the transaction that stores their answers (transaction.job.ts declares the job;
// shared/requests/queued-job.ts opens the transaction).
import type { Sql } from '../platform/db';
import { writeRefusal } from '../accounts/account.use-cases';
import { AppError } from '../platform/errors';
import { refusalAnswer, type Answer } from '../requests/answer';
import {
  isMoved,
  movedNoteBody,
  planImport,
  rejectionOf,
  toNewTransaction,
  type PlannedTransaction,
} from './import-plan';
import { loadSupplyChargeState } from './data-checks';
import { checkSupplyCharges } from './supply-charge.validation';
import type { TransactionData } from './transaction-data';
import * as repo from './transaction.repository';
import type { LockedAccount } from './transaction.repository';
import type { TransactionImport } from './transaction.validation';

/** One queued request's import, as a worker runs it. */
export interface ImportRun {
  accountId: number;
  /** The organisation that sent the request: the account must still be visible to it. */
  organisationId: number;
  resultId: string;
  import: TransactionImport;
}

/**
 * Imports several requests, each for an account of its own, in the caller's transaction (the one the
 * worker's group commit opens to store every answer with the work): one lock statement, one duplicate
 * lookup and one INSERT for the whole group. Each request is all or nothing on its own: a rejection or
 * a dry run writes none of its transactions and no note. One outcome per run, in order.
 */
export async function importTransactionGroup(
  tx: Sql,
  runs: ImportRun[],
  now: Date,
  locks: { wait: boolean },
): Promise<Answer[]> {
  const accounts = await lockWritableAccounts(tx, runs, locks);
  const existing = await repo.findExistingTransactions(
    tx,
    runs
      .filter((r) => r.import.options.check_previously_added && !(accounts.get(r) instanceof AppError))
      .map((r) => ({
        accountId: r.accountId,
        transactionIds: r.import.request.transactions.map((t) => t.transaction_id),
      })),
  );
  const plans: { run: ImportRun; account: LockedAccount; planned: PlannedTransaction[] }[] = [];
  const outcomes = new Map<ImportRun, Answer>();
  for (const run of runs) {
    const { options, request, echoes } = run.import;
    const account = accounts.get(run)!;
    if (account instanceof AppError) {
      outcomes.set(run, refusalAnswer(account));
      continue;
    }
    const { planned, rejected } = planImport(
      request.transactions,
      existing.get(run.accountId) ?? new Map<string, TransactionData>(),
      account,
      options.force_add_to_current_statement,
      echoes,
    );
    rejected.push(...checkSupplyCharges(planned, await loadSupplyChargeState(tx, run.accountId, planned)));
    if (rejected.length > 0) outcomes.set(run, refusalAnswer(rejectionOf(rejected)));
    else if (request.dry_run) outcomes.set(run, created(planned, new Map()));
    else plans.push({ run, account, planned });
  }

  const ids = await repo.insertTransactions(
    tx,
    plans.map(({ run, account, planned }) => ({
      accountId: run.accountId,
      resultId: run.resultId,
      rows: planned.filter((p) => p.add).map((p) => toNewTransaction(p, account.openPeriod)),
    })),
  );
  for (const { run, account, planned } of plans) {
    const moved = planned.filter(isMoved);
    if (moved.length > 0 && account.openPeriod) {
      await repo.insertPinnedNote(tx, run.accountId, movedNoteBody(moved, account.openPeriod), now);
    }
    outcomes.set(run, created(planned, ids.get(run.accountId)!));
  }
  return runs.map((run) => outcomes.get(run)!);
}

/**
 * Locks the runs' accounts (one statement) and gives each run its account, or what the API would answer
 * now for it: its look-up may have come from a cache, and the account, its supplier's migration or the
 * organisation's suppliers may have changed since (a 404 account_not_found or a 400
 * import_supplier_migration_not_ongoing, the API's very bodies).
 */
async function lockWritableAccounts(
  tx: Sql,
  runs: ImportRun[],
  locks: { wait: boolean },
): Promise<Map<ImportRun, LockedAccount | AppError>> {
  // Alone, an import waits for its account; in a group it does not (see shared/requests/group-commit.ts).
  const accounts = await repo.lockAccounts(
    tx,
    runs.map((r) => ({
      accountId: r.accountId,
      organisationId: r.organisationId,
      supplierCode: r.import.request.import_supplier,
    })),
    locks,
  );
  return new Map(
    runs.map((run) => {
      const account = accounts.get(run.accountId);
      return [run, writeRefusal(run.import.request.import_supplier, account) ?? account!];
    }),
  );
}

function created(planned: PlannedTransaction[], ids: Map<string, number>): Answer {
  const results = planned.map((p) => {
    const id = p.add ? ids.get(p.transaction.transaction_id) : undefined;
    return {
      status: p.add ? 'TRANSACTION_ADDED_TO_ACCOUNT' : 'TRANSACTION_ALREADY_EXISTS',
      // Next to the status: the stored transaction echoed below is not the one this request sent.
      ...(p.matchesStored === false ? { matches_stored: false } : {}),
      transaction_data: p.data,
      ...(id !== undefined ? { added_transaction_id: id } : {}),
    };
  });
  return { status: 201, body: { results } };
}
