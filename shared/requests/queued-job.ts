// The worker side of the wait-for-result protocol. A job's work and its stored result commit in one
// transaction, under a lock on the result row: a job that runs again after a crash (BullMQ redelivers
// stalled jobs) finds the row finished and does nothing, so no request is ever applied twice.
import type { Job } from 'bullmq';
import type { Prisma } from '../generated/prisma/client';
import type { Database, DbClient } from '../platform/db';
import type { QueuedRequestData } from '../platform/jobs';
import type { QueuedRequestOutcome } from './queued-request';
import * as repo from './request-result.repository';

export async function isRequestFinished(db: Database, requestId: string): Promise<boolean> {
  const row = await repo.findResult(db.prisma, requestId);
  return row === null || row.httpStatus != null;
}

/** Runs `work` and stores its outcome atomically; returns false when the request was already finished. */
export async function completeRequest(
  db: Database,
  requestId: string,
  work: (tx: DbClient) => Promise<QueuedRequestOutcome>,
): Promise<boolean> {
  return db.prisma.$transaction(
    async (tx) => {
      if (!(await repo.lockUnfinished(tx, requestId))) return false;
      const outcome = await work(tx);
      await repo.finishResult(tx, requestId, outcome.status, outcome.body as Prisma.InputJsonValue);
      return true;
    },
    { timeout: 60_000, maxWait: 30_000 },
  );
}

export function isFinalAttempt(job: Job<QueuedRequestData>): boolean {
  return job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
}

/** Stores the answer of a request whose retries are exhausted (no-op if it already has one). */
export async function failRequest(db: Database, requestId: string, outcome: QueuedRequestOutcome): Promise<void> {
  await completeRequest(db, requestId, async () => outcome);
}
