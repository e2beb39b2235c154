// The worker side of the wait-for-result protocol. A job's work and its stored result commit in one
// transaction, under a lock on the result row: a job that runs again after a crash (BullMQ redelivers
// stalled jobs) finds the row finished and does nothing, so no request is ever applied twice.
import type { Job } from 'bullmq';
import { asSql, inTransaction, type Database, type DbClient, type Sql } from '../platform/db';
import type { QueuedRequestData } from '../platform/jobs';
import type { QueuedRequestOutcome } from './queued-request';
import * as repo from './request-result.repository';

export async function isRequestFinished(db: Database, requestId: string): Promise<boolean> {
  const row = await repo.findResult(db.pool, requestId);
  return row === null || row.httpStatus != null;
}

/**
 * Runs `work` and stores its outcome atomically, in a Prisma interactive transaction (for work written
 * against Prisma); returns false when the request was already finished.
 */
export async function completeRequest(
  db: Database,
  requestId: string,
  work: (tx: DbClient) => Promise<QueuedRequestOutcome>,
): Promise<boolean> {
  return db.prisma.$transaction((tx) => finishOnce(asSql(tx), requestId, () => work(tx)), { timeout: 60_000, maxWait: 30_000 });
}

/** completeRequest in a plain pg transaction, for work written in SQL: a fraction of Prisma's CPU per step. */
export async function completeRequestSql(
  db: Database,
  requestId: string,
  work: (sql: Sql) => Promise<QueuedRequestOutcome>,
): Promise<boolean> {
  return inTransaction(db, (sql) => finishOnce(sql, requestId, () => work(sql)));
}

async function finishOnce(sql: Sql, requestId: string, work: () => Promise<QueuedRequestOutcome>): Promise<boolean> {
  if (!(await repo.lockUnfinished(sql, requestId))) return false;
  const outcome = await work();
  await repo.finishResult(sql, requestId, outcome.status, outcome.body);
  return true;
}

export function isFinalAttempt(job: Job<QueuedRequestData>): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/** Stores the answer of a request whose retries are exhausted (no-op if it already has one). */
export async function failRequest(db: Database, requestId: string, outcome: QueuedRequestOutcome): Promise<void> {
  await completeRequestSql(db, requestId, async () => outcome);
}
