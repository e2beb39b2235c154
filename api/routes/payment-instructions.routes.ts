// POST /v1/data-import/payment-instruction/create/: queued; answers what the worker stored (201, 400,
// or 500 "retry as-is" when the vendor stayed unreachable).
import { Router } from 'express';
import { createPaymentInstructionEndpoint } from '../../shared/payment-instructions/payment-instruction.endpoint';
import { requestPaymentInstruction } from '../../shared/payment-instructions/payment-instruction.use-cases';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { routeOf } from '../endpoint-path';
import { queuedHeaders, sendQueuedAnswer } from './queued-answer';

export function paymentInstructionRoutes(deps: AppDeps): Router {
  const router = Router();
  router.post(routeOf(createPaymentInstructionEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const outcome = await requestPaymentInstruction(deps, {
      organisationId,
      headers: queuedHeaders(req),
      httpRequestId: req.requestId,
      body: req.body,
    });
    sendQueuedAnswer(res, outcome);
  });
  return router;
}
