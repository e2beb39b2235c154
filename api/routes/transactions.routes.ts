// POST /v1/data-import/transactions/create/: checked here (400s and 404s never queue), imported by
// the worker (shared/transactions/transaction.job.ts); the answer is the one the worker stored.
import { Router } from 'express';
import { WritableAccountCache } from '../../shared/accounts/account.use-cases';
import { createTransactionsEndpoint } from '../../shared/transactions/transaction.endpoint';
import { requestTransactionImport } from '../../shared/transactions/transaction.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { routeOf } from '../endpoint-path';
import { queuedHeaders, sendQueuedAnswer } from './queued-answer';

export function transactionRoutes(deps: AppDeps): Router {
  const router = Router();
  const { db, queued, config } = deps;
  // This process's memory of the accounts its imports resolved: a burst for the same accounts costs no
  // look-up statement (the worker's account lock checks again what may have changed).
  const accounts = new WritableAccountCache({ maxEntries: config.ACCOUNT_CACHE_SIZE, ttlMs: config.ACCOUNT_CACHE_MS });

  router.post(routeOf(createTransactionsEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const outcome = requestTransactionImport(
      { db, queued, accounts, maxItems: config.MAX_ITEMS_PER_REQUEST },
      { organisationId, headers: queuedHeaders(req), httpRequestId: req.requestId, query: req.query, body: req.body },
    );
    // Checked by now (the checks run before the first await): the request waits for its answer holding
    // the validated payload only, not the parsed body too (fewer objects to copy at every scavenge).
    req.body = undefined;
    sendQueuedAnswer(res, await outcome);
  });

  return router;
}
