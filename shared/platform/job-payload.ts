// What a queued request's job carries, validated by the API. `version` travels in the job: a worker
// under the same version trusts the payload (`fromJob`), one under another version validates it again
// (`validate`, which throws the AppError the API would now answer). Bump it when the rules change.
export interface JobPayload<P> {
  version: number;
  validate(json: unknown): P;
  fromJob(json: unknown): P;
}
