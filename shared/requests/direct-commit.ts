// The API commits a burst of queued writes itself (docs/decisions/0015-api-commits-its-bursts.md): the
// requests of a `direct` kind that an API process receives together run as one group transaction, the
// very one a worker runs for a group of jobs (group-transaction.ts), with one difference: their result
// rows are inserted by it instead of before it (a row with an Idempotency-Key first, to claim the key;
// one without at the end, born answered). So a request committed here is
// one transaction and no queue hop: its row, its work, its answer and its run-ledger rows commit
// together, or none of them does.
//
// Nothing here waits for a lock (a busy account is the queue's, whose workers wait for it without
// holding an API connection), and every statement is bounded by the kind's `direct.timeoutMs`. A
// transaction that does not commit leaves nothing behind; the caller then hands the request to the
// queue under the same result id, so even a commit whose outcome is unknown is never applied twice
// (the job finds its row answered).
import type { Database, Sql } from '../platform/db';
import { createGroupCommitter } from './group-commit';
import { commitGroup, observeGroup, type Committed, type GroupItem } from './group-transaction';
import type { AnyQueuedRequestJob, QueuedRequest } from './job-declaration';
import * as repo from './request-result.repository';

export interface DirectCommitter {
  /**
   * Commits the request with the others of its burst: its answer, or null when its Idempotency-Key has
   * a row already (nothing was done: the request takes the one-by-one path). Rejects when the
   * transaction did not commit, or its outcome is unknown.
   */
  commit(row: repo.NewPendingResult, request: QueuedRequest<unknown>): Promise<Committed | null>;
}

interface DirectItem {
  row: repo.NewPendingResult;
  item: GroupItem;
}

export function createDirectCommitter(
  db: Database,
  kind: AnyQueuedRequestJob & { direct: NonNullable<AnyQueuedRequestJob['direct']> },
): DirectCommitter {
  const committer = createGroupCommitter<DirectItem, Committed | null>({
    keyOf: ({ item }) => kind.group.keyOf(item.request),
    maxGroup: kind.direct.maxItems,
    maxInFlight: kind.direct.inFlight,
    commit: (items) =>
      observeGroup(
        kind,
        items.length,
        commitGroup(
          {
            db,
            kind,
            claim: (tx) => claimRows(tx, items),
            store: (tx, answers) => storeRows(tx, items, answers),
            locks: { wait: false },
            timeoutMs: kind.direct.timeoutMs,
          },
          items.map(({ item }) => item),
        ),
      ),
  });
  return {
    commit: (row, request) => {
      // The API validated the payload under this very version: revived as a worker would a job of it.
      const payload: unknown = kind.payload.fromJob(request.payload);
      return committer.run({ row, item: { request: { ...request, payload }, prepared: undefined } });
    },
  };
}

/**
 * The rows this transaction answers: a row with an Idempotency-Key is inserted now (pending, so a
 * concurrent request with the key waits for this transaction, then finds the row); one without needs no
 * claim (its id is fresh) and is inserted with its answer by storeRows.
 */
async function claimRows(tx: Sql, items: DirectItem[]): Promise<Set<string>> {
  const keyed = items.filter(({ row }) => row.idempotencyKey !== null).map(({ row }) => row);
  const claimed = keyed.length > 0 ? await repo.insertPendingMany(tx, keyed, null) : new Set<string>();
  for (const { row } of items) if (row.idempotencyKey === null) claimed.add(row.id);
  return claimed;
}

/** Answers the keyed rows claimed (one UPDATE) and inserts the others answered (one INSERT). */
async function storeRows(tx: Sql, items: DirectItem[], answers: repo.StoredAnswer[]): Promise<void> {
  const rows = new Map(items.map(({ row }) => [row.id, row]));
  const keyed = answers.filter((a) => rows.get(a.id)!.idempotencyKey !== null);
  const fresh = answers.filter((a) => rows.get(a.id)!.idempotencyKey === null);
  await repo.storeAnswers(tx, keyed);
  await repo.insertAnswered(
    tx,
    fresh.map((answer) => ({ row: rows.get(answer.id)!, answer })),
  );
}
