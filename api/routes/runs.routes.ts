// GET /v1/data-import/runs/<run_id>/: what the caller's run did (shared/runs/run.use-cases.ts). Same
// organisation only: another organisation's run id answers 404 as an unknown one.
import { Router } from 'express';
import { getRun } from '../../shared/runs/run.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { onlyQueryParameters } from './query-parameters';

export function runRoutes(deps: Pick<AppDeps, 'db'>): Router {
  const router = Router();
  router.get('/runs/:runId/', onlyQueryParameters('accounts_after'), async (req, res) => {
    const { organisationId } = callerOf(req);
    res.json(await getRun(deps.db, organisationId, String(req.params.runId), req.query));
  });
  return router;
}
