// /support/runs/<organisation>/<run_id>/: the queue dashboard's link from a job to its run's progress,
// redirected to the run's page under the supplier its writes named (both staff roles, read-only).
import { Router } from 'express';
import type { Database } from '../../shared/platform/db';
import { runSupportPath } from '../../shared/run-progress/run-progress.use-cases';

export function runLinkRoutes(deps: { db: Database }): Router {
  const router = Router();
  router.get('/support/runs/:organisation/:runId/', async (req, res) => {
    const to = await runSupportPath(deps.db, req.params.organisation, req.params.runId);
    if (to === undefined) {
      res.status(404).type('text/plain').send('No write of this run has been recorded yet.');
      return;
    }
    res.redirect(303, to);
  });
  return router;
}
