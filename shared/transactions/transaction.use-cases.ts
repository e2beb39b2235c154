// Importing transactions onto an account (design: "Request flows", queued writes). The API validates,
// resolves the account and queues; the worker imports under the account lock and returns the answer
// that is stored with the work in the same database transaction.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import { asSql, type Database, type DbClient, type Sql } from '../platform/db';
import { accountNotFound } from '../platform/errors';
import type { QueuedRequestOutcome, QueuedRequests } from '../requests/queued-request';
import { isMoved, movedNoteBody, planImport, toNewTransaction, type PlannedTransaction } from './import-plan';
import * as repo from './transaction.repository';
import { parseIdempotencyKey } from '../requests/idempotency-key';
import {
  parseTransactionImport,
  type TransactionImport,
  type TransactionImportPayload,
} from './transaction.validation';

const TRANSACTIONS_ENDPOINT = 'transactions/create';

export async function requestTransactionImport(
  deps: { db: Database; queued: QueuedRequests; maxItems: number },
  req: { organisationId: number; idempotencyKey: string | undefined; traceId?: string; query: unknown; body: unknown },
): Promise<QueuedRequestOutcome> {
  const idempotencyKey = parseIdempotencyKey(req.idempotencyKey);
  const checked = parseTransactionImport({ options: req.query, request: req.body }, { maxItems: deps.maxItems });
  const account = await resolveWritableAccount(deps.db, req.organisationId, checked.request);
  return deps.queued.submit<TransactionImportPayload>({
    job: 'importTransactions',
    endpoint: TRANSACTIONS_ENDPOINT,
    organisationId: req.organisationId,
    accountId: account.accountId,
    idempotencyKey,
    traceId: req.traceId,
    payload: { options: checked.options, request: req.body },
  });
}

/**
 * All or nothing: a rejection or a dry run writes no transaction and no note. Runs in the caller's
 * transaction, a pg one (completeRequestSql) or a Prisma one (completeRequest).
 */
export async function importTransactions(
  client: Sql | DbClient,
  run: { accountId: number; requestId: string; now: Date },
  { options, request }: TransactionImport,
): Promise<QueuedRequestOutcome> {
  const tx = asSql(client);
  const account = await repo.lockAccount(tx, run.accountId);
  // Deleted between the API's check and this job: answer as the API would have.
  if (!account) return notFound();
  const existing = options.check_previously_added
    ? await repo.findExistingTransactionIds(tx, run.accountId, request.transactions.map((t) => t.transaction_id))
    : new Set<string>();
  const planned = planImport(request.transactions, existing, account, options.force_add_to_current_statement);
  if (!Array.isArray(planned)) return planned.toOutcome();
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

function notFound(): QueuedRequestOutcome {
  const err = accountNotFound();
  return { status: err.status, body: { detail: err.message, code: err.code } };
}

function created(planned: PlannedTransaction[], ids: Map<string, string>): QueuedRequestOutcome {
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
