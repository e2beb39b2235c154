// Account creation over HTTP: validate an account, stage it, process it (v1, queued: the request waits
// for the account), schedule it (v2, queued for its window: the request answers at once), and read a
// process's v2 status. The creation itself runs in the jobs of account-creation.job.ts.
import { Router } from 'express';
import { requestAccountProcess, scheduleAccountCreation } from '../../shared/account-import/account-creation.use-cases';
import {
  accountJson,
  getImportStatus,
  stageAccount,
  validateAccount,
  validateV2,
} from '../../shared/account-import/account-import.use-cases';
import {
  importStatusEndpoint,
  processAccountEndpoint,
  scheduleAccountEndpoint,
  stageAccountEndpoint,
  validateAccountEndpoint,
  validateAccountV2Endpoint,
} from '../../shared/account-import/account-import.endpoint';
import { pathOf } from '../../shared/requests/endpoint-declaration';
import { callerOf } from '../auth/authenticate';
import { paramOf, routeOf } from '../endpoint-path';
import type { AppDeps } from '../app-deps';
import { queuedHeaders, sendQueuedAnswer } from './queued-answer';

/** Mounted under /v1/data-import. */
export function accountImportRoutes(deps: Pick<AppDeps, 'db' | 'queued' | 'now'>): Router {
  const router = Router();
  const now = () => deps.now?.() ?? new Date();

  router.post(routeOf(validateAccountEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const { account } = await validateAccount(deps.db, organisationId, req.body);
    res.status(200).type('application/json').send(accountJson(account));
  });

  router.post(routeOf(stageAccountEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const staged = await stageAccount(deps.db, organisationId, req.body, now());
    res.status(staged.created ? 201 : 200).json(staged.body);
  });

  router.post(routeOf(processAccountEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const caller = { organisationId, headers: queuedHeaders(req), httpRequestId: req.requestId };
    sendQueuedAnswer(res, await requestAccountProcess(deps, caller, req.body));
  });

  return router;
}

/** Mounted under /v2/data-import. */
export function accountImportV2Routes(deps: Pick<AppDeps, 'db' | 'queued' | 'queues' | 'now'>): Router {
  const router = Router();
  const now = () => deps.now?.() ?? new Date();

  router.post(routeOf(scheduleAccountEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const caller = { organisationId, headers: queuedHeaders(req), httpRequestId: req.requestId };
    const scheduled = await scheduleAccountCreation(deps, caller, req.body, now());
    const status = pathOf(importStatusEndpoint, scheduled);
    res.status(201).location(status).json(scheduled);
  });

  router.post(routeOf(validateAccountV2Endpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    await validateV2(deps.db, organisationId, req.body);
    res.status(200).json({});
  });

  router.get(routeOf(importStatusEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const [supplier, external] = [paramOf(req, 'import_supplier_code'), paramOf(req, 'external_identifier')];
    res.json(await getImportStatus(deps.db, organisationId, supplier, external));
  });

  return router;
}
