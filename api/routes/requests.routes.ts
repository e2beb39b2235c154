// GET /v1/data-import/requests/<id>/: the answer of a queued request that answered 503 (its Location),
// so a client without an Idempotency-Key learns the outcome instead of posting again. Same
// organisation only; still pending answers 503 result_pending again.
import { Router } from 'express';
import { requestAnswerEndpoint } from '../../shared/requests/request-answer.endpoint';
import { callerOf } from '../auth/authenticate';
import { paramOf, routeOf } from '../endpoint-path';
import type { AppDeps } from '../app-deps';
import { sendQueuedAnswer } from './queued-answer';

export function requestRoutes(deps: Pick<AppDeps, 'queued'>): Router {
  const router = Router();
  router.get(routeOf(requestAnswerEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    sendQueuedAnswer(res, await deps.queued.find(organisationId, paramOf(req, 'request_id')));
  });
  return router;
}
