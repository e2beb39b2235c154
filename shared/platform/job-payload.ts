// What a queued request's job carries, validated by the API. `version` travels in the job: a worker
// under the same version trusts the payload (`fromJob`), one under another version validates it again
// (`validate`, which throws the AppError the API would now answer). Bump it when the rules change.
import type { Sql } from './db';

export interface JobPayload<P> {
  version: number;
  validate(json: unknown): P;
  fromJob(json: unknown): P;
}

type Answer = { status: number; body: unknown };

/**
 * A job whose answer is large (it echoes the request) may send a compact form on its completion event,
 * and store one in request_results: the API rebuilds the whole answer from it and the request it holds
 * (the waiting request, or a replay, whose body hash proves it is the same request).
 */
export interface CompactAnswer {
  /** Worker side, for the completion event: the compact form, or undefined to send the whole answer. */
  compact(answer: Answer): unknown;
  /**
   * Worker side, for the stored row: whether `rebuild` can restore the whole answer from this compact
   * form without the request (GET requests/<id>/). If not, the row stores the whole answer.
   */
  storable(compact: unknown): boolean;
  /** API side: the whole answer, or undefined when `value` is not this job's compact form. */
  expand(value: unknown, payloadJson: unknown): Answer | undefined;
  /**
   * The whole answer of a stored compact form, read from what the job wrote: undefined when `value` is
   * not this job's compact form, null when what it refers to is gone.
   */
  rebuild(db: Sql, value: unknown): Promise<Answer | null | undefined>;
}
