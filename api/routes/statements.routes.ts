// POST /v1/data-import/historical-statements/create/ (synchronous): validate, then write in one transaction (with its run-ledger rows).
import { Router } from 'express';
import { createStatementsEndpoint } from '../../shared/statements/statement.endpoint';
import { statementsRequestSchema } from '../../shared/statements/statement.schemas';
import { createHistoricalStatements } from '../../shared/statements/statement.use-cases';
import { parseOrThrow } from '../../shared/platform/validation';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { routeOf } from '../endpoint-path';
import { ledgerInTransaction } from '../run-ledger';

export function statementRoutes(deps: AppDeps): Router {
  const router = Router();
  const schema = statementsRequestSchema(deps.config.MAX_ITEMS_PER_REQUEST);

  router.post(routeOf(createStatementsEndpoint), async (req, res) => {
    // The body is validated before the account is looked up: a malformed request is a 400, never a 404.
    const request = parseOrThrow(schema, req.body);
    const { organisationId } = callerOf(req);
    res.status(201).json(await createHistoricalStatements(deps, organisationId, request, ledgerInTransaction(res)));
  });

  return router;
}
