// Importing transactions onto an account, the API's half (design: "Request flows", queued writes): it
// validates, resolves the account and queues; the worker's half is import-group.ts, run by the job
// declared in transaction.job.ts.
import { forgetRefusedAccount, resolveWritableAccount, type WritableAccountCache } from '../accounts/account.use-cases';
import type { Database } from '../platform/db';
import type { Answer } from '../requests/answer';
import type { QueuedRequests } from '../requests/queued-request';
import { parseRequestHeaders, type RequestHeaders } from '../requests/request-headers';
import { withDataChecks } from './data-checks';
import { transactionImportJob } from './transaction.job';
import { toTransactionImportJson } from './transaction.job-payload';
import { parseTransactionImport, TransactionFieldErrors, type TransactionImport } from './transaction.validation';

/** The API's half: checks (400s and 404s never queue), then queues the validated request and waits. */
export async function requestTransactionImport(
  deps: { db: Database; queued: QueuedRequests; maxItems: number; accounts?: WritableAccountCache },
  req: { organisationId: number; headers: RequestHeaders; httpRequestId?: string; query: unknown; body: unknown },
): Promise<Answer> {
  const headers = parseRequestHeaders(req.headers);
  const checked = await checkedImport(deps, req);
  // From the process's cache when it can: the job's account lock checks again (import-group.ts).
  const account = await resolveWritableAccount(deps.db, req.organisationId, checked.request, deps.accounts);
  const answer = await deps.queued.submit({
    job: transactionImportJob,
    organisationId: req.organisationId,
    accountId: account.accountId,
    ...headers,
    httpRequestId: req.httpRequestId,
    payload: toTransactionImportJson(checked),
  });
  if (deps.accounts) forgetRefusedAccount(deps.accounts, req.organisationId, checked.request, answer);
  return answer;
}

/** The request's import, or its 400 naming every failing transaction (field and stored-data checks). */
async function checkedImport(
  deps: { db: Database; maxItems: number },
  req: { organisationId: number; query: unknown; body: unknown },
): Promise<TransactionImport> {
  try {
    return parseTransactionImport({ options: req.query, request: req.body }, { maxItems: deps.maxItems });
  } catch (err) {
    if (err instanceof TransactionFieldErrors) throw await withDataChecks(deps.db, req.organisationId, req.body, err);
    throw err;
  }
}
