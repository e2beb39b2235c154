// POST /v1/data-import/runs/<run_id>/declaration/: a client's run says what it sends (its kind, files
// and line counts) when it starts, so GET runs/<run_id>/ and the support page can show percent done,
// rate and ETA (shared/run-progress/). Declaring again (a resumed run) replaces what was declared.
import { Router } from 'express';
import { runDeclarationEndpoint } from '../../shared/run-progress/run-declaration.endpoint';
import { declareRun } from '../../shared/run-progress/run-progress.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { paramOf, routeOf } from '../endpoint-path';

export function runDeclarationRoutes(deps: Pick<AppDeps, 'db'>): Router {
  const router = Router();
  router.post(routeOf(runDeclarationEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    res.json(await declareRun(deps.db, organisationId, paramOf(req, 'run_id'), req.body));
  });
  return router;
}
