// The synchronous half of account creation: validate an account, stage it (v1), validate it (v2) and
// read a process's v2 status. The queued creation is declared by its job.
import { Router } from 'express';
import {
  accountJson,
  getImportStatus,
  stageAccount,
  validateAccount,
  validateV2,
} from '../../shared/account-import/account-import.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { onlyQueryParameters } from './query-parameters';

/** Mounted under /v1/data-import. */
export function accountImportRoutes(deps: Pick<AppDeps, 'db' | 'now'>): Router {
  const router = Router();
  const now = () => deps.now?.() ?? new Date();

  router.post('/validate-account/', onlyQueryParameters(), async (req, res) => {
    const { organisationId } = callerOf(req);
    const { account } = await validateAccount(deps.db, organisationId, req.body);
    res.status(200).type('application/json').send(accountJson(account));
  });

  router.post('/account-import-process/create-or-update/', onlyQueryParameters(), async (req, res) => {
    const { organisationId } = callerOf(req);
    const staged = await stageAccount(deps.db, organisationId, req.body, now());
    res.status(staged.created ? 201 : 200).json(staged.body);
  });

  return router;
}

/** Mounted under /v2/data-import. */
export function accountImportV2Routes(deps: Pick<AppDeps, 'db'>): Router {
  const router = Router();

  router.post('/accounts/validate/', onlyQueryParameters(), async (req, res) => {
    const { organisationId } = callerOf(req);
    await validateV2(deps.db, organisationId, req.body);
    res.status(200).json({});
  });

  router.get('/accounts/:supplier/:externalIdentifier/', async (req, res) => {
    const { organisationId } = callerOf(req);
    res.json(await getImportStatus(deps.db, organisationId, req.params.supplier, req.params.externalIdentifier));
  });

  return router;
}
