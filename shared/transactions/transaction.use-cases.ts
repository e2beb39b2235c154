// Importing transactions onto an account (design: "Request flows", queued writes). The API validates,
// resolves the account and queues; the worker imports under the account lock and returns the answer
// that is stored with the work in the same database transaction.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import { asSql, type Database, type DbClient, type Sql } from '../platform/db';
import { accountNotFound } from '../platform/errors';
import { outcomeOf, type QueuedRequestOutcome } from '../requests/outcome';
import type { QueuedRequests } from '../requests/queued-request';
import { parseRequestHeaders, type RequestHeaders } from '../requests/request-headers';
import {
  isMoved,
  movedNoteBody,
  planImport,
  rejectionOf,
  toNewTransaction,
  type PlannedTransaction,
} from './import-plan';
import {
  addedSupplyCharges,
  checkSupplyCharges,
  coveredDays,
  type SupplyChargeState,
} from './supply-charge.validation';
import { toTransactionImportJson } from './transaction.job-payload';
import * as repo from './transaction.repository';
import { parseTransactionImport, type TransactionImport } from './transaction.validation';

/** The API's half: checks (400s and 404s never queue), then queues the validated request and waits. */
export async function requestTransactionImport(
  deps: { db: Database; queued: QueuedRequests; maxItems: number },
  req: { organisationId: number; headers: RequestHeaders; traceId?: string; query: unknown; body: unknown },
): Promise<QueuedRequestOutcome> {
  const headers = parseRequestHeaders(req.headers);
  const checked = parseTransactionImport({ options: req.query, request: req.body }, { maxItems: deps.maxItems });
  const account = await resolveWritableAccount(deps.db, req.organisationId, checked.request);
  return deps.queued.submit({
    job: 'importTransactions',
    organisationId: req.organisationId,
    accountId: account.accountId,
    ...headers,
    traceId: req.traceId,
    payload: toTransactionImportJson(checked),
  });
}

/**
 * All or nothing: a rejection or a dry run writes no transaction and no note. Runs in the caller's
 * transaction (the one runQueuedJob opens to store the answer with the work).
 */
export async function importTransactions(
  client: Sql | DbClient,
  run: { accountId: number; requestId: string; now: Date },
  { options, request, echoes }: TransactionImport,
): Promise<QueuedRequestOutcome> {
  const tx = asSql(client);
  const account = await repo.lockAccount(tx, run.accountId);
  // Deleted between the API's check and this job: answer as the API would have.
  if (!account) return outcomeOf(accountNotFound());
  const existing = options.check_previously_added
    ? await repo.findExistingTransactionIds(
        tx,
        run.accountId,
        request.transactions.map((t) => t.transaction_id),
      )
    : new Set<string>();
  const { planned, rejected } = planImport(
    request.transactions,
    existing,
    account,
    options.force_add_to_current_statement,
    echoes,
  );
  rejected.push(...checkSupplyCharges(planned, await loadSupplyChargeState(tx, run.accountId, planned)));
  if (rejected.length > 0) return outcomeOf(rejectionOf(rejected));
  if (request.dry_run) return created(planned, new Map());

  const added = planned.filter((p) => p.add);
  const ids = await repo.insertTransactions(
    tx,
    run.accountId,
    run.requestId,
    added.map((p) => toNewTransaction(p, account.openPeriod)),
  );
  const moved = added.filter(isMoved);
  if (moved.length > 0 && account.openPeriod) {
    await repo.insertPinnedNote(tx, run.accountId, movedNoteBody(moved, account.openPeriod), run.now);
  }
  return created(planned, ids);
}

/** The catalogue and charged periods the request's new supply charges meet; nothing is read without any. */
async function loadSupplyChargeState(
  tx: Sql,
  accountId: number,
  planned: PlannedTransaction[],
): Promise<SupplyChargeState> {
  const charges = addedSupplyCharges(planned).map((c) => c.charge);
  if (charges.length === 0) return { products: new Map(), charged: [] };
  const days = charges.flatMap((c) => c.line_items.map(coveredDays));
  const from = days.reduce((min, d) => (d.from < min ? d.from : min), days[0]!.from);
  const until = days.reduce((max, d) => (d.until > max ? d.until : max), days[0]!.until);
  // One after the other: both run on the one connection of the import's transaction.
  const products = await repo.findProductRates(tx, [...new Set(charges.map((c) => c.product_code))]);
  return { products, charged: await repo.findChargedPeriods(tx, accountId, from, until) };
}

function created(planned: PlannedTransaction[], ids: Map<string, number>): QueuedRequestOutcome {
  const results = planned.map((p) => {
    const id = p.add ? ids.get(p.transaction.transaction_id) : undefined;
    return {
      status: p.add ? 'TRANSACTION_ADDED_TO_ACCOUNT' : 'TRANSACTION_ALREADY_EXISTS',
      transaction_data: p.data,
      ...(id !== undefined ? { added_transaction_id: id } : {}),
    };
  });
  return { status: 201, body: { results } };
}
