// How a queued request's answer is sent, by the POST that submitted it and by GET requests/<id>/.
import type { Request, Response } from 'express';
import type { RequestHeaders } from '../../shared/requests/request-headers';
import type { Answer } from '../../shared/requests/answer';
import { markQueuedAnswer } from '../run-ledger';

export function queuedHeaders(req: Request): RequestHeaders {
  return { idempotencyKey: req.get('idempotency-key'), runId: req.get('data-import-run-id') };
}

export function sendQueuedAnswer(res: Response, outcome: Answer): void {
  // Stripe's header: the answer is the one stored for an earlier request with the same key.
  if (outcome.replayed) res.set('Idempotent-Replayed', 'true');
  markQueuedAnswer(res);
  res.status(outcome.status).json(outcome.body);
}
