// The worker side of the wait-for-result protocol: every queued request's job runs through here, the
// same way for every kind (shared/requests/job-declaration.ts says what a kind declares). A job's work
// and its answer commit in one transaction, under a lock on its request_results row: a job that runs
// again after a crash (BullMQ redelivers stalled jobs) finds the row answered and does nothing, so no
// request is ever applied twice.
//
// One path: a job is read and checked, prepared outside any transaction, then committed in a group
// with the other jobs of its kind this process runs at the same time (a lone job is a group of one).
// Every statement of a group's transaction is in group-transaction.ts (`commitGroup`).
//
// Outcomes are explicit: a refusal (an AppError below 500) is the stored answer and the job completes;
// a fault throws so BullMQ retries with the job's back-off; when the attempts are spent (or the job
// gives up) the stored answer is the kind's "retry as it is" 500.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { AppError, TransientError } from '../platform/errors';
import { refusalAnswer } from './answer';
import { createGroupCommitter, type GroupCommitter } from './group-commit';
import { commitGroup, observeGroup, type GroupItem } from './group-transaction';
import type {
  AnyQueuedRequestJob,
  BurstData,
  BurstOutcome,
  JobContext,
  QueuedRequest,
  QueuedRequestData,
} from './job-declaration';
import * as repo from './request-result.repository';

/** Thrown by a job's code that can no longer answer in time: the request gets its 500 at once. */
export class GiveUp extends UnrecoverableError {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/** The most requests of one burst job the worker runs (the API's bursts are far smaller: burst.maxItems). */
const MAX_BURST_REQUESTS = 1000;

/**
 * Runs the queued-request jobs of one worker process. It owns one group committer per job kind; the
 * worker creates one runner per process (and per database, in tests that open several).
 */
export class QueuedJobRunner {
  private readonly committers = new Map<AnyQueuedRequestJob, GroupCommitter<GroupItem, unknown>>();

  constructor(private readonly ctx: JobContext) {}

  /** The answer as the completion event carries it (its compact form when it has one); null when an earlier run stored it. */
  run(kind: AnyQueuedRequestJob, job: Job<QueuedRequestData>): Promise<unknown> {
    return this.runRequest(kind, requestOf(job.data, job), job);
  }

  /**
   * A burst's job (shared/requests/burst.ts): each of its requests runs as a job of its own would, side
   * by side, so the group committer puts them in one transaction. Completes with every request's value
   * in one event; when any request faults, the job throws once all have settled, and its retry skips
   * the requests answered meanwhile (their rows are finished).
   */
  async runBurst(kind: AnyQueuedRequestJob, job: Job<BurstData>): Promise<BurstOutcome> {
    // Bounded, but never below what an API may put in a burst: a request cut off here would wait for
    // the lost-job sweep instead of its job.
    const requests = (job.data.requests ?? []).slice(0, Math.max(MAX_BURST_REQUESTS, kind.burst?.maxItems ?? 0));
    const asJob = job as unknown as Job<QueuedRequestData>;
    const settled = await Promise.allSettled(
      requests.map((data) => this.runRequest(kind, requestOf(data, asJob), asJob)),
    );
    const fault = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (fault) throw fault.reason;
    const values = settled.map((s) => (s as PromiseFulfilledResult<unknown>).value);
    return { burst: Object.fromEntries(requests.map((data, i) => [data.resultId, values[i] ?? null])) };
  }

  private async runRequest(
    kind: AnyQueuedRequestJob,
    request: QueuedRequest<unknown>,
    job: Job<QueuedRequestData>,
  ): Promise<unknown> {
    try {
      if (kind.onlyWhilePending && (await this.isAnswered(request.resultId))) return null;
      const item = await prepare(kind, request, this.ctx);
      return await this.committerOf(kind).run(item);
    } catch (err) {
      if (err instanceof DelayedError) throw err;
      if (err instanceof GiveUp || isFinalAttempt(job)) await this.answerSpentJob(kind, request, err);
      throw err;
    }
  }

  /** Stores the request's last answer: a TransientError's own "retry as it is", else the kind's. */
  private async answerSpentJob(kind: AnyQueuedRequestJob, request: QueuedRequest<unknown>, err: unknown) {
    const reason = err instanceof GiveUp ? err.reason : err;
    const answer = refusalAnswer(reason instanceof TransientError ? reason : kind.exhausted());
    await this.committerOf(kind)
      .run({ request, answer })
      .catch((storeErr: unknown) =>
        this.ctx.logger.error(
          { err: storeErr, resultId: request.resultId },
          'could not store the answer of a request whose attempts are spent',
        ),
      );
  }

  private committerOf(kind: AnyQueuedRequestJob): GroupCommitter<GroupItem, unknown> {
    let committer = this.committers.get(kind);
    if (!committer) {
      committer = createGroupCommitter<GroupItem, unknown>({
        keyOf: (item) => kind.group.keyOf(item.request),
        commit: (items) =>
          observeGroup(
            kind,
            items.length,
            commitGroup(
              {
                db: this.ctx.db,
                kind,
                claim: (tx, ids) => repo.lockUnanswered(tx, ids, { wait: items.length === 1 }),
                locks: { wait: items.length === 1 },
              },
              items,
            ).then((outcomes) => outcomes.map((o) => o?.event ?? null)),
          ),
        maxGroup: kind.group.maxSize,
        maxInFlight: kind.group.inFlight,
      });
      this.committers.set(kind, committer);
    }
    return committer;
  }

  private async isAnswered(resultId: string): Promise<boolean> {
    const row = await repo.findResult(this.ctx.db.pool, resultId);
    return row === null || row.httpStatus != null;
  }
}

/** A request a job carries (jobs queued before the fields were renamed name them requestId and traceId). */
function requestOf(carried: QueuedRequestData, job: Job<QueuedRequestData>): QueuedRequest<unknown> {
  const data = carried as QueuedRequestData & { requestId?: string };
  const resultId = data.resultId ?? data.requestId!;
  const { organisationId, accountId, payload, version } = data;
  return { resultId, organisationId, accountId, payload, version, job };
}

/** Checks the payload and runs the kind's `prepare`; a refusal becomes the item's answer. */
async function prepare(
  kind: AnyQueuedRequestJob,
  request: QueuedRequest<unknown>,
  ctx: JobContext,
): Promise<GroupItem> {
  const { version } = request;
  try {
    // Same version: the API validated it under these very rules. Another one (jobs outlive deploys):
    // judged again, so a job queued under older rules gets the answer the API would now give.
    const payload: unknown =
      version === kind.payload.version ? kind.payload.fromJob(request.payload) : kind.payload.validate(request.payload);
    const checked = { ...request, payload };
    return { request: checked, prepared: await kind.prepare?.(checked, ctx) };
  } catch (err) {
    if (err instanceof AppError && err.status < 500) return { request, answer: refusalAnswer(err) };
    throw err;
  }
}

function isFinalAttempt(job: Job<QueuedRequestData>): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
