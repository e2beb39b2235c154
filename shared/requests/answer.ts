// The answer of a queued request: the HTTP status and body the client gets. The worker stores it in
// request_results with the work that produced it; the API sends it to the waiting request, to a replay
// with the same Idempotency-Key, and to GET requests/<id>/.
//
// Words used for it across shared/requests: an *answer* is always this status and body; a job may
// also define a *compact form* of its answers (see CompactForm in job-declaration.ts), smaller, which
// its completion event carries and the row may store; the API *expands* a compact form back into the
// answer with the request it holds, or *rebuilds* it from the database alone.
import type { AppError } from '../platform/errors';

export interface Answer {
  status: number;
  body: unknown;
  /** Set when the answer is one stored for an earlier request with the same Idempotency-Key. */
  replayed?: boolean;
  /** The refusal's code, stored with the answer for support look-ups (else read from the body's `code`). */
  errorCode?: string;
}

/** A refusal as an answer: the same body the error middleware would send for it. */
export function refusalAnswer(err: AppError): Answer {
  return { status: err.status, body: err.toBody(), errorCode: err.code };
}
