// POST /v1/data-import/transactions/create/: checked here (400s and 404s never queue), imported by
// the worker (worker/processors/transactions.processor.ts); the answer is the one the worker stored.
import { Router } from 'express';
import { requestTransactionImport } from '../../shared/transactions/transaction.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { queuedHeaders, sendQueuedAnswer } from './queued-answer';

export function transactionRoutes(deps: AppDeps): Router {
  const router = Router();
  const { db, queued, config } = deps;

  router.post('/transactions/create/', async (req, res) => {
    const { organisationId } = callerOf(req);
    const outcome = await requestTransactionImport(
      { db, queued, maxItems: config.MAX_ITEMS_PER_REQUEST },
      { organisationId, headers: queuedHeaders(req), traceId: req.requestId, query: req.query, body: req.body },
    );
    sendQueuedAnswer(res, outcome);
  });

  return router;
}
