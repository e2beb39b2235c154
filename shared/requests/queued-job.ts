// The worker side of the wait-for-result protocol: every queued request's job goes through
// runQueuedJob. A job's work and its stored answer commit in one transaction, under a lock on the
// result row: a job that runs again after a crash (BullMQ redelivers stalled jobs) finds the row
// finished and does nothing, so no request is ever applied twice.
//
// Outcomes are explicit: a refusal (an AppError below 500) is the stored answer and the job completes;
// a fault throws so BullMQ retries with the job's backoff; when the attempts are spent (or the
// processor gives up) the stored answer is the job's "retry as it is" 500.
import { DelayedError, UnrecoverableError, type Job } from 'bullmq';
import { asSql, inTransaction, type Database, type DbClient, type Sql } from '../platform/db';
import { AppError, codeOfErrorBody, TransientError } from '../platform/errors';
import { JOBS, type JobKey, type JobPayloadOf, type QueuedRequestData } from '../platform/jobs';
import type { Logger } from '../platform/logger';
import { processMetrics } from '../platform/metrics';
import { createGroupCommitter, type GroupCommitter } from './group-commit';
import { outcomeOf, type QueuedRequestOutcome } from './outcome';
import * as repo from './request-result.repository';

/** A queued request as its processor sees it: the payload is the validated request. */
interface QueuedJob<P> {
  requestId: string;
  organisationId: number;
  accountId: number;
  payload: P;
  /** The BullMQ job, for processors that steer it (delay it until a breaker's trial). */
  job: Job<QueuedRequestData>;
}

/** `sql`: a plain pg transaction (a fraction of Prisma's CPU per step); `prisma`: for work written against Prisma. */
type Commit<P, R> =
  | { sql: (tx: Sql, request: QueuedJob<P>, prepared: R) => Promise<QueuedRequestOutcome> }
  | { prisma: (tx: DbClient, request: QueuedJob<P>, prepared: R) => Promise<QueuedRequestOutcome> };

/**
 * Work that the jobs a process runs at the same time can share one transaction for (group commit,
 * shared/requests/group-commit.ts). Declare it once, at module level: a process keeps one group per
 * declaration and database.
 */
export interface GroupCommit<P> {
  group: {
    /** Requests with equal keys never share a transaction (each must see what the other wrote). */
    keyOf: (request: QueuedJob<P>) => string | number;
    /**
     * Every request's work, one outcome each in order, in the transaction that stores their answers.
     * `locks.wait`: false in a group of several, whose locks must not wait (see group-commit.ts).
     */
    commit: (tx: Sql, requests: QueuedJob<P>[], locks: { wait: boolean }) => Promise<QueuedRequestOutcome[]>;
  };
}

export type QueuedJobProcessor<P, R = undefined> = (Commit<P, R> | GroupCommit<P>) & {
  /** Run the job only while its request is unanswered: `prepare` calls what must not be called twice. */
  onlyWhilePending?: boolean;
  /** Outside any transaction (a slow vendor holds no lock and no connection). */
  prepare?: (request: QueuedJob<P>) => Promise<R>;
};

/** Thrown by a processor that can no longer answer in time: the request gets its 500 at once. */
export class GiveUp extends UnrecoverableError {
  constructor(readonly reason: unknown) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

/**
 * Returns the answer as its completion event carries it (compact when JOBS[key].compactAnswer has a
 * form for it). Null when an earlier run had stored it.
 */
export async function runQueuedJob<K extends JobKey, R>(
  key: K,
  job: Job<QueuedRequestData>,
  ctx: { db: Database; logger: Logger },
  processor: QueuedJobProcessor<JobPayloadOf<K>, R>,
): Promise<unknown> {
  const { requestId } = job.data;
  try {
    if (processor.onlyWhilePending && (await isRequestFinished(ctx.db, requestId))) return null;
    const step = await prepare(key, job, processor).catch(asRefusal);
    if ('refusal' in step) return await finishRequest(ctx.db, requestId, answerWith(step.refusal), key);
    if ('group' in processor) return await groupOf(key, ctx.db, processor).run(step.request);
    return await finishRequest(ctx.db, requestId, bind(processor, step), key);
  } catch (err) {
    if (err instanceof DelayedError) throw err;
    if (err instanceof GiveUp || isFinalAttempt(job)) {
      const answer = exhausted(key, err instanceof GiveUp ? err.reason : err);
      await finishRequest(ctx.db, requestId, answerWith(answer), key).catch((storeErr: unknown) =>
        ctx.logger.error(
          { err: storeErr, requestId },
          'could not store the answer of a request whose attempts are spent',
        ),
      );
    }
    throw err;
  }
}

interface Prepared<P, R> {
  request: QueuedJob<P>;
  prepared: R;
}

async function prepare<K extends JobKey, R>(
  key: K,
  job: Job<QueuedRequestData>,
  processor: QueuedJobProcessor<JobPayloadOf<K>, R>,
): Promise<Prepared<JobPayloadOf<K>, R>> {
  const { requestId, organisationId, accountId, version, payload } = job.data;
  const schema = JOBS[key].payload;
  // Same version: the API validated it under these very rules. Another one (jobs outlive deploys):
  // judged again, so a job queued under older rules gets the answer the API would now give.
  const parsed = (version === schema.version ? schema.fromJob(payload) : schema.validate(payload)) as JobPayloadOf<K>;
  const request: QueuedJob<JobPayloadOf<K>> = { requestId, organisationId, accountId, payload: parsed, job };
  return { request, prepared: (await processor.prepare?.(request)) as R };
}

function asRefusal(err: unknown): { refusal: AppError } {
  if (err instanceof AppError && err.status < 500) return { refusal: err };
  throw err;
}

/** The work that finishes a request, bound to its transaction kind. */
type Work =
  { sql: (tx: Sql) => Promise<QueuedRequestOutcome> } | { prisma: (tx: DbClient) => Promise<QueuedRequestOutcome> };

function bind<P, R>(commit: Commit<P, R>, { request, prepared }: Prepared<P, R>): Work {
  return 'sql' in commit
    ? { sql: (tx) => commit.sql(tx, request, prepared) }
    : { prisma: (tx) => commit.prisma(tx, request, prepared) };
}

const answerWith = (err: AppError): Work => ({ sql: async () => outcomeOf(err) });

/**
 * What an answer becomes: the body request_results keeps and the value its completion event carries.
 * Both are the job's compact form when it has one (the row only when it can be rebuilt from the
 * database alone), else the whole answer.
 */
function formsOf(key: JobKey, outcome: QueuedRequestOutcome): { stored: unknown; event: unknown } {
  const answer = { status: outcome.status, body: outcome.body };
  const forms = JOBS[key].compactAnswer;
  const compact = forms?.compact(answer);
  if (compact === undefined) return { stored: answer.body, event: answer };
  return { stored: forms!.storable(compact) ? compact : answer.body, event: compact };
}

async function finishRequest(db: Database, requestId: string, work: Work, key: JobKey): Promise<unknown> {
  if ('sql' in work) return inTransaction(db, (sql) => finishOnce(sql, requestId, () => work.sql(sql), key));
  return db.prisma.$transaction((tx) => finishOnce(asSql(tx), requestId, () => work.prisma(tx), key), {
    timeout: 60_000,
    maxWait: 30_000,
  });
}

async function finishOnce(
  sql: Sql,
  requestId: string,
  work: () => Promise<QueuedRequestOutcome>,
  key: JobKey,
): Promise<unknown> {
  const [event] = await finishUnfinished(sql, [requestId], async () => [await work()], key, { wait: true });
  return event;
}

/**
 * Locks the requests' result rows, does the work of those still unfinished and stores their answers,
 * all in the caller's transaction: the single and the group paths alike. Returns each request's event
 * value, null for one an earlier run of its job finished (that run must not be repeated).
 */
async function finishUnfinished(
  sql: Sql,
  requestIds: string[],
  work: (unfinished: string[]) => Promise<QueuedRequestOutcome[]>,
  key: JobKey,
  locks: { wait: boolean },
): Promise<unknown[]> {
  const unfinished = await repo.lockUnfinishedMany(sql, requestIds, locks);
  const todo = requestIds.filter((id) => unfinished.has(id));
  const outcomes = todo.length > 0 ? await work(todo) : [];
  const events = new Map<string, unknown>();
  const rows = todo.map((id, i) => {
    const outcome = outcomes[i]!;
    const { stored, event } = formsOf(key, outcome);
    events.set(id, event);
    return { id, httpStatus: outcome.status, body: stored, errorCode: errorCodeOf(outcome) };
  });
  await repo.finishResults(sql, rows);
  return requestIds.map((id) => events.get(id) ?? null);
}

function errorCodeOf(outcome: QueuedRequestOutcome): string | null {
  if (outcome.status < 400) return null;
  return outcome.errorCode ?? codeOfErrorBody(outcome.body) ?? null;
}

/** A TransientError names its own fault ("retry as it is"); anything else answers the job's catalogued 500. */
function exhausted(key: JobKey, err: unknown): AppError {
  return err instanceof TransientError ? err : JOBS[key].exhausted();
}

// Most jobs in one group's transaction, and most group transactions of one kind committing at once in a
// process: two let PostgreSQL work on one group while the next one fills.
const GROUP_MAX = 64;
const GROUPS_IN_FLIGHT = 2;

// One committer per declaration and database (a process has one database; tests open several).
const groups = new WeakMap<object, WeakMap<Database, GroupCommitter<never, unknown>>>();

function groupOf<P>(key: JobKey, db: Database, work: GroupCommit<P>): GroupCommitter<QueuedJob<P>, unknown> {
  const byDb = groups.get(work) ?? new WeakMap<Database, GroupCommitter<never, unknown>>();
  groups.set(work, byDb);
  const known = byDb.get(db) as GroupCommitter<QueuedJob<P>, unknown> | undefined;
  if (known) return known;
  const committer = createGroupCommitter<QueuedJob<P>, unknown>({
    keyOf: work.group.keyOf,
    commit: async (requests) => {
      const observe = (outcome: string) =>
        processMetrics().groupCommits.observe({ queue: JOBS[key].queue, outcome }, requests.length);
      try {
        const events = await inTransaction(db, (sql) => finishGroup(sql, requests, work, key));
        observe('committed');
        return events;
      } catch (err) {
        observe('failed');
        throw err;
      }
    },
    maxGroup: GROUP_MAX,
    maxInFlight: GROUPS_IN_FLIGHT,
  });
  byDb.set(db, committer);
  return committer;
}

/** A group's requests in one transaction. A group of several does not wait for a lock: it fails, and its jobs run alone. */
function finishGroup<P>(sql: Sql, requests: QueuedJob<P>[], work: GroupCommit<P>, key: JobKey) {
  const locks = { wait: requests.length === 1 };
  const byId = new Map(requests.map((r) => [r.requestId, r]));
  return finishUnfinished(
    sql,
    requests.map((r) => r.requestId),
    (unfinished) =>
      work.group.commit(
        sql,
        unfinished.map((id) => byId.get(id)!),
        locks,
      ),
    key,
    locks,
  );
}

async function isRequestFinished(db: Database, requestId: string): Promise<boolean> {
  const row = await repo.findResult(db.pool, requestId);
  return row === null || row.httpStatus != null;
}

function isFinalAttempt(job: Job<QueuedRequestData>): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}
