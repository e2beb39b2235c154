// One queue hop per burst (docs/decisions/0014-one-job-per-burst.md): the queued requests of one kind
// that an API process receives together are handed to the workers in one BullMQ job, their pending
// rows inserted in one statement.
//
// The hand-over clocks itself as the worker's group commit does: a request that arrives while a slot is
// free is handed over after the current turn of the event loop (with whatever else arrived in it), so a
// lone request waits for nothing; requests that arrive while every slot is busy wait and form the next
// burst (at most `maxItems` requests, about `maxBytes` of payload). A burst of one is today's job, with
// the request's id as its job id. A burst of several is one job whose id is its first request's id;
// every row of the burst names it (job_id), which is how the lost-job sweep finds it.
//
// Nothing changes in the protocol's guarantees: each request keeps its row, its answer, its Location and
// its Idempotency-Key; the worker commits each request's work with its answer under its row's lock, so
// a burst that runs again (a crash, a retry) skips the requests it already answered.
import type { BackoffOptions } from 'bullmq';
import type { Database } from '../platform/db';
import { UnavailableError } from '../platform/errors';
import type { JobQueues } from '../platform/queues';
import type { AnyQueuedRequestJob, BurstData, QueuedRequestData } from './job-declaration';
import * as repo from './request-result.repository';

const RETRY_AFTER_SECONDS = 2;

/** How one request's hand-over ended. */
type HandOver =
  | { kind: 'queued'; jobId: string }
  /** Redis refused the burst's job: this refusal is the request's answer (stored, when it names the request). */
  | { kind: 'refused'; refusal: UnavailableError }
  /** Its Idempotency-Key has a row already: the request takes the one-by-one path. */
  | { kind: 'taken' };

interface BurstRequest {
  row: repo.NewPendingResult;
  data: QueuedRequestData;
  /** The payload's size in characters (its JSON), for the burst's byte bound. */
  bytes: number;
}

export interface BurstQueue {
  /** Inserts the request's pending row and adds its job, with the others of its burst. */
  handOver(request: BurstRequest): Promise<HandOver>;
}

interface Waiting {
  request: BurstRequest;
  resolve: (outcome: HandOver) => void;
  reject: (err: unknown) => void;
}

interface BurstDeps {
  db: Database;
  queues: JobQueues;
  kind: AnyQueuedRequestJob & { burst: NonNullable<AnyQueuedRequestJob['burst']> };
  backoff?: BackoffOptions;
}

export function createBurstQueue(deps: BurstDeps): BurstQueue {
  const { maxItems, maxBytes, inFlight } = deps.kind.burst;
  const waiting: Waiting[] = [];
  let flushing = 0;
  let planned = false;

  const plan = () => {
    if (planned || waiting.length === 0 || flushing >= inFlight) return;
    planned = true;
    setImmediate(() => {
      planned = false;
      while (waiting.length > 0 && flushing < inFlight) void flush(take());
    });
  };

  // The oldest requests, at most maxItems and (past the first) about maxBytes of payload.
  const take = () => {
    let bytes = 0;
    let n = 0;
    while (n < waiting.length && n < maxItems && (n === 0 || bytes + waiting[n]!.request.bytes <= maxBytes)) {
      bytes += waiting[n]!.request.bytes;
      n++;
    }
    return waiting.splice(0, n);
  };

  const flush = async (burst: Waiting[]) => {
    flushing++;
    try {
      const outcomes = await handOverBurst(
        deps,
        burst.map((w) => w.request),
      );
      burst.forEach((w, i) => w.resolve(outcomes[i]!));
    } catch (err) {
      for (const w of burst) w.reject(err);
    } finally {
      flushing--;
      plan();
    }
  };

  return {
    handOver: (request) =>
      new Promise<HandOver>((resolve, reject) => {
        waiting.push({ request, resolve, reject });
        plan();
      }),
  };
}

/**
 * The burst's rows in one statement, then its one job. When Redis refuses the job, every row of it gets
 * the 503 queue_unavailable answer (if still pending: the job may have been taken after all and have
 * finished), and each of its requests is refused with it.
 */
async function handOverBurst(deps: BurstDeps, requests: BurstRequest[]): Promise<HandOver[]> {
  const jobId = requests[0]!.row.id;
  const alone = requests.length === 1;
  const inserted = await repo.insertPendingMany(
    deps.db.pool,
    requests.map((r) => r.row),
    alone ? null : jobId,
  );
  const members = requests.filter((r) => inserted.has(r.row.id));
  const refusalFor = members.length > 0 ? await addJob(deps, jobId, alone, members) : undefined;
  // A request whose key has a row already is not refused with the burst: it was never part of the job.
  return requests.map((r): HandOver => {
    if (!inserted.has(r.row.id)) return { kind: 'taken' };
    return refusalFor ? { kind: 'refused', refusal: refusalFor(r.row.id) } : { kind: 'queued', jobId };
  });
}

/** Adds the burst's job; when Redis refuses it, what each of its requests is answered instead. */
async function addJob(
  deps: BurstDeps,
  jobId: string,
  alone: boolean,
  members: BurstRequest[],
): Promise<((resultId: string) => UnavailableError) | undefined> {
  const { kind } = deps;
  const opts = { attempts: kind.retry.attempts, backoff: deps.backoff ?? kind.retry.backoff, ...kind.cleanUp, jobId };
  try {
    const queue = deps.queues.queue(kind.queue);
    if (alone) await queue.add(kind.name, members[0]!.data, opts);
    else await queue.add(kind.burst.name, { requests: members.map((m) => m.data) } satisfies BurstData, opts);
    return undefined;
  } catch {
    const refusal = (id?: string) =>
      new UnavailableError(
        'queue_unavailable',
        'The work queue is unavailable. Retry the request as it is.',
        RETRY_AFTER_SECONDS,
        id,
      );
    const refusals = members.map((m) => ({ id: m.row.id, err: refusal(m.row.id) }));
    const stored = await repo.storeRefusalsIfPending(deps.db.pool, refusals).then(
      () => true,
      () => false,
    );
    // Without a stored answer the Location would report "pending" for ever: leave it out.
    return stored ? refusal : () => refusal();
  }
}
