// The answer of a queued request, as stored in request_results and sent to the client.
import type { AppError } from '../platform/errors';

export interface QueuedRequestOutcome {
  status: number;
  body: unknown;
  /** Set when the answer is one stored for an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
  /** The refusal's code, stored with the answer for support look-ups (else read from the body's `code`). */
  errorCode?: string;
}

/** A refusal as a stored answer: the same body the error middleware would send for it. */
export function outcomeOf(err: AppError): QueuedRequestOutcome {
  return { status: err.status, body: err.toBody(), errorCode: err.code };
}
