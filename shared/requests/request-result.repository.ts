// request_results: the stored outcome of every queued request (see shared/requests/queued-request.ts).
import { Prisma } from '../generated/prisma/client';
import type { DbClient } from '../platform/db';

export interface StoredResult {
  id: string;
  bodyHash: string;
  httpStatus: number | null;
  body: Prisma.JsonValue;
  createdAt: Date;
}

const SELECT = { id: true, bodyHash: true, httpStatus: true, body: true, createdAt: true } as const;

/** Inserts the pending row; with a key that already has a row, returns that row instead. */
export async function createOrFindPending(
  db: DbClient,
  row: { id: string; organisationId: number; endpoint: string; idempotencyKey: string | null; bodyHash: string },
): Promise<{ created: boolean; result: StoredResult }> {
  const inserted = await db.$executeRaw`
    INSERT INTO request_results (id, organisation_id, endpoint, idempotency_key, body_hash)
    VALUES (${row.id}, ${row.organisationId}, ${row.endpoint}, ${row.idempotencyKey}, ${row.bodyHash})
    ON CONFLICT DO NOTHING`;
  if (inserted === 1) {
    return { created: true, result: { id: row.id, bodyHash: row.bodyHash, httpStatus: null, body: null, createdAt: new Date() } };
  }
  const existing = await db.requestResult.findFirst({
    where: { organisationId: row.organisationId, endpoint: row.endpoint, idempotencyKey: row.idempotencyKey },
    select: SELECT,
  });
  if (!existing) throw new Error(`request result ${row.id} neither inserted nor found`);
  return { created: false, result: existing };
}

export async function findResult(db: DbClient, id: string): Promise<StoredResult | null> {
  return db.requestResult.findUnique({ where: { id }, select: SELECT });
}

/** Frees an idempotency key whose row is older than the replay window. */
export async function expireIdempotencyKey(db: DbClient, id: string): Promise<void> {
  await db.requestResult.update({ where: { id }, data: { idempotencyKey: null } });
}

/**
 * Makes a request whose stored answer is a 5xx ("retry as it is") pending again, so the retry runs it.
 * A concurrent retry may have reopened (or even finished) it first: then this changes nothing.
 */
export async function reopenRetryable(db: DbClient, id: string): Promise<void> {
  await db.requestResult.updateMany({
    where: { id, httpStatus: { gte: 500 } },
    data: { httpStatus: null, body: Prisma.DbNull, finishedAt: null },
  });
}

export async function deleteResult(db: DbClient, id: string): Promise<void> {
  await db.requestResult.delete({ where: { id } });
}

/**
 * Locks the row for the worker. Returns false when it is already finished: an earlier run of the job
 * committed its work and its result, so this run must do nothing.
 */
export async function lockUnfinished(db: DbClient, id: string): Promise<boolean> {
  const rows = await db.$queryRaw<{ finished: boolean }[]>`
    SELECT finished_at IS NOT NULL AS finished FROM request_results WHERE id = ${id} FOR UPDATE`;
  return rows[0]?.finished === false;
}

export async function finishResult(db: DbClient, id: string, httpStatus: number, body: Prisma.InputJsonValue): Promise<void> {
  await db.requestResult.update({ where: { id }, data: { httpStatus, body, finishedAt: new Date() } });
}
