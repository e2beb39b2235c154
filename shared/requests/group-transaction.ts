// The transaction that commits a group of queued requests, the same for the worker (a group of jobs,
// shared/requests/queued-job.ts) and for the API when it commits a burst itself (direct-commit.ts):
// the requests' result rows are claimed, their work is done, their answers and run-ledger rows are
// written, all in one transaction, so an answer is stored exactly when its work is.
import { inTransaction, type Database, type Sql } from '../platform/db';
import { codeOfErrorBody } from '../platform/errors';
import { processMetrics } from '../platform/metrics';
import type { Answer } from './answer';
import type { AnyQueuedRequestJob, PreparedRequest, QueuedRequest } from './job-declaration';
import * as repo from './request-result.repository';
import { entriesOf, subjectOf } from '../runs/ledger-entries';
import { insertQueuedEntries } from '../runs/ledger.public';

/** A request in its group: prepared for its kind's `commit`, or already answered (a refusal, a spent job). */
export type GroupItem = PreparedRequest<unknown, unknown> | { request: QueuedRequest<unknown>; answer: Answer };

/** A request's answer, whole and as the completion event carries it (its kind's compact form, if any). */
export interface Committed {
  answer: Answer;
  event: unknown;
}

export interface GroupTransaction {
  db: Database;
  kind: AnyQueuedRequestJob;
  /**
   * First statement: the ids among the group's whose rows this transaction may answer, locked until it
   * ends (the worker: the rows still unanswered; the API: the rows it has just inserted).
   */
  claim: (tx: Sql, ids: string[]) => Promise<Set<string>>;
  /** Last of the work: stores the claimed requests' answers (default: the rows claimed are updated). */
  store?: (tx: Sql, answers: repo.StoredAnswer[]) => Promise<void>;
  /** Whether the group's locks may wait (a lone job's do; see group-commit.ts). */
  locks: { wait: boolean };
  timeoutMs?: number;
}

/**
 * One group's transaction, every statement of it in order:
 *   BEGIN; SET LOCAL statement_timeout, jit                       (inTransaction)
 *   the claim: SELECT … FOR UPDATE [NOWAIT] of the unanswered rows (worker), or, in the API's own
 *              burst, INSERT … ON CONFLICT DO NOTHING RETURNING id of the rows with an Idempotency-Key
 *   the kind's commit(tx, …) for the prepared requests claimed     (e.g. transactions: lock the accounts,
 *                                                                  look up existing ones, INSERT them)
 *   UPDATE request_results SET http_status, body, … FROM (…)      (storeAnswers, one statement) and, in
 *                                                                  the API's burst, INSERT of the rows
 *                                                                  without a key, born answered
 *   INSERT INTO run_ledger … SELECT … JOIN request_results         (the run ledger, one statement)
 *   COMMIT
 * One outcome per item, in order; null for an item not claimed.
 */
export async function commitGroup(group: GroupTransaction, items: GroupItem[]): Promise<(Committed | null)[]> {
  const { kind, locks } = group;
  const ids = items.map((item) => item.request.resultId);
  return inTransaction(
    group.db,
    async (tx) => {
      const claimed = await group.claim(tx, ids);
      const todo = items.filter((item) => claimed.has(item.request.resultId));
      const toRun = todo.filter((item): item is PreparedRequest<unknown, unknown> => !('answer' in item));
      const computed = toRun.length > 0 ? await kind.commit(tx, toRun, locks) : [];
      const answers = new Map<GroupItem, Answer>(toRun.map((item, i) => [item, computed[i]!]));
      const rows = todo.map((item) => ({
        item,
        ...formsOf(kind, 'answer' in item ? item.answer : answers.get(item)!),
      }));
      await (group.store ?? repo.storeAnswers)(
        tx,
        rows.map(({ item, stored, answer }) => ({
          id: item.request.resultId,
          httpStatus: answer.status,
          body: stored,
          errorCode: errorCodeOf(answer),
        })),
      );
      await insertQueuedEntries(
        tx,
        rows.map(({ item, answer }) => ledgerRequestOf(kind, item.request, answer)),
      );
      const outcomes = new Map(rows.map(({ item, answer, event }) => [item, { answer, event }]));
      return items.map((item) => outcomes.get(item) ?? null);
    },
    group.timeoutMs,
  );
}

/** The run-ledger rows of a queued request's answer (shared/runs/ledger-entries.ts). */
function ledgerRequestOf(kind: AnyQueuedRequestJob, request: QueuedRequest<unknown>, answer: Answer) {
  const subject = subjectOf(request.payload);
  const { resultId: requestId } = request;
  return {
    requestId,
    endpoint: kind.endpoint,
    httpStatus: answer.status,
    subject,
    entries: entriesOf(subject, answer.status, answer.body),
  };
}

/**
 * The answer as the row stores it and as the completion event carries it: the kind's compact form when
 * it has one (in the row only when it can be rebuilt from the database alone), else the answer whole.
 */
function formsOf(kind: AnyQueuedRequestJob, answer: Answer): { answer: Answer; stored: unknown; event: unknown } {
  const whole = { status: answer.status, body: answer.body };
  const compact: unknown = kind.compactForm?.compact(whole);
  if (compact === undefined) return { answer, stored: whole.body, event: whole };
  return { answer, stored: kind.compactForm!.rebuildable(compact) ? compact : whole.body, event: compact };
}

function errorCodeOf(answer: Answer): string | null {
  if (answer.status < 400) return null;
  return answer.errorCode ?? codeOfErrorBody(answer.body) ?? null;
}

/** Counts a group's transaction, by outcome and size, in the group_commit metric. */
export async function observeGroup<T>(kind: AnyQueuedRequestJob, size: number, commit: Promise<T>): Promise<T> {
  const observe = (outcome: string) => processMetrics().groupCommits.observe({ queue: kind.queue, outcome }, size);
  try {
    const outcomes = await commit;
    observe('committed');
    return outcomes;
  } catch (err) {
    observe('failed');
    throw err;
  }
}
