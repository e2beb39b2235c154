// What a queued request's job carries, validated by the API. `version` travels in the job: a worker
// under the same version trusts the payload (`fromJob`), one under another version validates it again
// (`validate`, which throws the AppError the API would now answer). Bump it when the rules change.
export interface JobPayload<P> {
  version: number;
  validate(json: unknown): P;
  fromJob(json: unknown): P;
}

/**
 * A job whose answer is large may send a compact form on its completion event; the waiting API
 * rebuilds the whole answer from it and the payload it queued. The stored row keeps the whole answer.
 */
export interface CompactAnswer {
  /** Worker side: the compact form, or undefined to send the whole answer. */
  compact(answer: { status: number; body: unknown }): unknown;
  /** API side: the whole answer, or undefined when `value` is not this job's compact form. */
  expand(value: unknown, payloadJson: unknown): { status: number; body: unknown } | undefined;
}
