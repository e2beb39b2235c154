// GET requests/<id>/: the stored answer of one of the organisation's queued requests, or 503 while it
// is pending (the wait-for-result protocol's Location, shared/requests/queued-request.ts).
import type { Database } from '../platform/db';
import { NotFoundError, resultPending } from '../platform/errors';
import type { Answer } from './answer';
import type { AnyQueuedRequestJob } from './job-declaration';
import * as repo from './request-result.repository';

const RETRY_AFTER_SECONDS = 2;
const RESULT_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export async function findRequestAnswer(
  ctx: { db: Database; jobs: readonly AnyQueuedRequestJob[] },
  organisationId: number,
  resultId: string,
): Promise<Answer> {
  // Another organisation's request answers exactly as one that does not exist.
  const row =
    resultId.length === 36 && RESULT_ID.test(resultId)
      ? await repo.findOwnResult(ctx.db.pool, organisationId, resultId)
      : null;
  // A compact stored answer is rebuilt from what its job wrote (the request itself is not at hand).
  const compact = row?.httpStatus != null ? jobOfEndpoint(ctx, row.endpoint).compactForm : undefined;
  const rebuilt = compact && row ? await compact.rebuild(ctx.db.pool, row.body) : undefined;
  const purged = row?.httpStatus != null && (row.body == null || rebuilt === null);
  if (!row || purged) {
    throw new NotFoundError(
      'request_not_found',
      'No request with this id, or its answer was purged 24 hours after it finished.',
    );
  }
  if (row.httpStatus == null) throw resultPending(RETRY_AFTER_SECONDS, resultId);
  return rebuilt ?? { status: row.httpStatus, body: row.body };
}

/** Every stored row's endpoint is one of the catalog's jobs' (rows are only written for them). */
function jobOfEndpoint(ctx: { jobs: readonly AnyQueuedRequestJob[] }, endpoint: string): AnyQueuedRequestJob {
  const job = ctx.jobs.find((j) => j.endpoint === endpoint);
  if (!job) throw new Error(`request_results row of unknown endpoint ${endpoint}`);
  return job;
}
