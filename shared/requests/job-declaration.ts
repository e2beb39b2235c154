// What a component declares about each kind of work it hands to the workers, in one object: its queue
// and job names, its endpoint, what its job carries, how its answers travel, how it is retried and
// grouped, and the code that runs it. The declarations live with their components
// (shared/transactions/transaction.job.ts, …) and are listed in shared/catalog/jobs.ts, which the API
// and the worker read; the worker side of a queued request is shared/requests/queued-job.ts.
//
// Queue and job names and endpoints are persisted state (Redis keys, jobs waiting across a deploy, the
// `endpoint` column of request_results): never rename one in place; add a new one and drain the old.
import type { BackoffOptions, Job, JobsOptions } from 'bullmq';
import type { Config } from '../platform/config';
import type { Database, Sql } from '../platform/db';
import type { AppError } from '../platform/errors';
import type { Logger } from '../platform/logger';
import type { Answer } from './answer';

type CleanUp = Pick<JobsOptions, 'removeOnComplete' | 'removeOnFail'>;

/** What the worker gives the code of every job. */
export interface JobContext {
  config: Config;
  db: Database;
  logger: Logger;
}

/**
 * What a queued request's job carries, validated by the API. `version` travels in the job: a worker
 * under the same version trusts the payload (`fromJob`), one under another version validates it again
 * (`validate`, which throws the AppError the API would now answer). Bump it when the rules change.
 */
export interface JobPayload<P> {
  version: number;
  validate(json: unknown): P;
  fromJob(json: unknown): P;
}

/**
 * A smaller form of a job's answers, for answers that echo the request (most of their bytes): the
 * completion event carries it and request_results may store it; the API expands it back with the
 * request it holds (the waiting request, or a replay whose body hash proves it is the same request).
 */
export interface CompactForm {
  /** Worker side: the compact form of an answer, or undefined to send and store the answer whole. */
  compact(answer: Answer): unknown;
  /** Worker side: whether `rebuild` can restore the answer from this form alone; if not, the row stores it whole. */
  rebuildable(compact: unknown): boolean;
  /** API side: the answer, or undefined when `value` is not this job's compact form. */
  expand(value: unknown, payloadJson: unknown): Answer | undefined;
  /** API side, without the request: the answer read from what the job wrote; null when that is gone. */
  rebuild(db: Sql, value: unknown): Promise<Answer | null | undefined>;
}

/** The data of a burst's job: the requests' own data, in arrival order. Its id is the first one's `resultId`. */
export interface BurstData {
  requests: QueuedRequestData[];
}

/** What a burst's job completes with: each request's completion value by result id (null: answered before). */
export interface BurstOutcome {
  burst: Record<string, unknown>;
}

/** The data of every queued request's job. The job's id is `resultId` too. */
export interface QueuedRequestData<P = unknown> {
  /** The request_results row this job must answer. */
  resultId: string;
  /** X-Request-Id of the HTTP request that queued the job, for log correlation. */
  httpRequestId?: string;
  /** The client's Data-Import-Run-Id, when sent: the dashboard shows it on the job. */
  runId?: string;
  organisationId: number;
  /** The account the request writes to; null for a request that creates its account. */
  accountId: number | null;
  /** The payload's JobPayload version when the API validated it. */
  version?: number;
  payload: P;
}

/** A queued request as its job's code sees it: the payload is the validated request. */
export interface QueuedRequest<P> {
  resultId: string;
  organisationId: number;
  /** Null for a request that creates its account (`accountOf` reads it where one must be). */
  accountId: number | null;
  payload: P;
  /** The payload's JobPayload version when the API validated it (QueuedRequestData's). */
  version?: number;
  /**
   * The BullMQ job, for code that steers it (delays it until a vendor's breaker lets a call through);
   * absent when the API commits the request itself (`direct`).
   */
  job?: Job<QueuedRequestData>;
}

/** A request whose `prepare` step has run: what it found travels into the transaction. */
export interface PreparedRequest<P, V> {
  request: QueuedRequest<P>;
  prepared: V;
}

/** A job kind that answers an HTTP request (the wait-for-result protocol). */
export interface QueuedRequestJob<P, V = undefined> {
  queue: string;
  name: string;
  /**
   * Its path under /v1/data-import/, without slashes at either end: the route, the OpenAPI path and
   * the load-shedding cap use it, and it scopes the Idempotency-Key and the body hash.
   */
  endpoint: string;
  payload: JobPayload<P>;
  compactForm?: CompactForm;
  retry: { attempts: number; backoff: BackoffOptions };
  /** How long Redis keeps its finished jobs (shared/platform/queues.ts CLEAN_UP). */
  cleanUp: CleanUp;
  /** How many jobs of this kind one worker process runs at once. */
  concurrency: (config: Pick<Config, 'WORKER_CONCURRENCY'>) => number;
  /**
   * Group commit (shared/requests/group-commit.ts): the jobs of this kind a process runs at once share
   * one transaction, at most `maxSize` of them, at most `inFlight` transactions at once. Requests with
   * equal keys never share one (each must see what the other wrote). maxSize 1: every job alone.
   */
  group: { keyOf: (request: QueuedRequest<P>) => string | number; maxSize: number; inFlight: number };
  /**
   * One job per burst (shared/requests/burst.ts): the requests of this kind an API process receives
   * together travel in one job named `name` (at most `maxItems` requests and about `maxBytes` of
   * payload), at most `inFlight` bursts being handed over at once. Only for kinds whose job code never
   * steers its own job (no DelayedError, no `onlyWhilePending`): a burst's job is shared.
   */
  burst?: { name: string; maxItems: number; maxBytes: number; inFlight: number };
  /**
   * The API commits the requests of this kind it receives together itself, in the group transaction a
   * worker runs (shared/requests/direct-commit.ts): at most `maxItems` in one transaction, `inFlight`
   * transactions at once per API process, every statement bounded by `timeoutMs`, no lock waited for.
   * What it cannot commit at once goes to the queue under the same result id. Only for kinds with no
   * `prepare` (no vendor call, nothing slow outside the transaction) and no `onlyWhilePending`.
   */
  direct?: { maxItems: number; inFlight: number; timeoutMs: number };
  /** Run the job only while its request is unanswered: `prepare` calls what must not be called twice. */
  onlyWhilePending?: boolean;
  /**
   * Per job, outside any transaction (a slow vendor holds no lock and no connection). An AppError
   * below 500 it throws is the request's answer.
   */
  prepare?: (request: QueuedRequest<P>, ctx: JobContext) => Promise<V>;
  /**
   * In the group's transaction, after the group's result rows are locked and before its answers are
   * stored: one answer per request, in order. `locks.wait` is false in a group of several, whose locks
   * must not wait (see group-commit.ts).
   */
  commit: (tx: Sql, requests: PreparedRequest<P, V>[], locks: { wait: boolean }) => Promise<Answer[]>;
  /** What the request answers when its attempts are spent on faults that are not TransientErrors. */
  exhausted: () => AppError;
}

/** A job the service schedules for itself (a BullMQ job scheduler), one at a time. */
export interface ScheduledJob {
  queue: string;
  name: string;
  everyMs: number;
  retry: { attempts: number; backoff: BackoffOptions };
  cleanUp: CleanUp;
  /** `queuedRequestJobs`: every queued-request job kind of the catalog, for a job that looks after them. */
  run: (ctx: JobContext & { queuedRequestJobs: readonly AnyQueuedRequestJob[] }) => Promise<unknown>;
}

/** The account of a request that writes to one (every kind but account creation). */
export function accountOf(request: { accountId: number | null }): number {
  if (request.accountId === null) throw new Error('a request for an existing account was queued without its account');
  return request.accountId;
}

/** Declares a queued-request job (an identity that lets TypeScript infer P and V from the object). */
export const queuedRequestJob = <P, V = undefined>(declaration: QueuedRequestJob<P, V>) => declaration;

/** Any queued-request job, as lists and the API's protocol handle them. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyQueuedRequestJob = QueuedRequestJob<any, any>;
