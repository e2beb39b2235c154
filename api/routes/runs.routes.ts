// GET /v1/data-import/runs/<run_id>/: what the caller's run did (shared/run-progress/run.use-cases.ts). Same
// organisation only: another organisation's run id answers 404 as an unknown one.
import { Router } from 'express';
import { runEndpoint } from '../../shared/run-progress/run.endpoint';
import { getRun } from '../../shared/run-progress/run.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { paramOf, routeOf } from '../endpoint-path';

export function runRoutes(deps: Pick<AppDeps, 'db'>): Router {
  const router = Router();
  router.get(routeOf(runEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    res.json(await getRun(deps.db, organisationId, paramOf(req, 'run_id'), req.query));
  });
  return router;
}
