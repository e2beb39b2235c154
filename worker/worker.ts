// Starts one BullMQ Worker per queue of the job catalog (shared/catalog/jobs.ts). A queue's Worker hands
// each job to the code its declaration names, by job name: queued requests through the process's
// QueuedJobRunner (shared/requests/queued-job.ts), scheduled jobs through their own `run`. Logs one line
// per job attempt, records job durations, and keeps a heartbeat in Redis for /readyz.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import { QUEUED_REQUEST_JOBS, SCHEDULED_JOBS } from '../shared/catalog/jobs';
import type { Config } from '../shared/platform/config';
import { beat, HEARTBEAT_INTERVAL_MS, removeBeat } from '../shared/platform/heartbeat';
import type { Logger } from '../shared/platform/logger';
import { processMetrics } from '../shared/platform/metrics';
import { connectionsFor, queuePrefix, WORKER_LOCK_OPTIONS } from '../shared/platform/queues';
import { createRedis, untilReady, type RedisClient } from '../shared/platform/redis';
import type { BurstData, JobContext, QueuedRequestData } from '../shared/requests/job-declaration';
import { QueuedJobRunner } from '../shared/requests/queued-job';
import { scrubJobError } from './job-failure';

export interface RunningWorkers {
  workers: Worker[];
  /** Whether this process's Redis connection answers PING within a second: the worker's liveness. */
  redisAnswers(): Promise<boolean>;
  /** Stops taking jobs, lets running ones finish, closes connections. */
  stop(): Promise<void>;
}

/** What runs one job, and how many jobs of its queue one process runs at once. */
interface JobHandler {
  run: (job: Job) => Promise<unknown>;
  concurrency: number;
}

/** Every job of the catalog by queue, then by job name. */
function handlersByQueue(ctx: JobContext): Map<string, Map<string, JobHandler>> {
  const runner = new QueuedJobRunner(ctx);
  const byQueue = new Map<string, Map<string, JobHandler>>();
  const add = (queue: string, name: string, handler: JobHandler) =>
    byQueue.set(queue, (byQueue.get(queue) ?? new Map<string, JobHandler>()).set(name, handler));
  for (const kind of QUEUED_REQUEST_JOBS) {
    add(kind.queue, kind.name, {
      run: (job) => runner.run(kind, job as Job<QueuedRequestData>),
      concurrency: kind.concurrency(ctx.config),
    });
    // A burst's job runs many requests side by side: a few at once keep the group committer fed.
    if (kind.burst) {
      add(kind.queue, kind.burst.name, {
        run: (job) => runner.runBurst(kind, job as Job<BurstData>),
        concurrency: kind.concurrency(ctx.config),
      });
    }
  }
  // Scheduled jobs need no parallelism.
  for (const scheduled of SCHEDULED_JOBS) {
    const run = () => scheduled.run({ ...ctx, queuedRequestJobs: QUEUED_REQUEST_JOBS });
    add(scheduled.queue, scheduled.name, { run, concurrency: 1 });
  }
  return byQueue;
}

/** One attempt of one job: the handler its name selects, with a log line and a duration sample. */
function attemptRunner(queue: string, handlers: Map<string, JobHandler>, logger: Logger) {
  const metrics = processMetrics();
  return async (job: Job) => {
    const data = job.data as Partial<QueuedRequestData> & { traceId?: string };
    const burst = (job.data as Partial<BurstData>).requests;
    const log = logger.child({
      queue,
      jobId: job.id,
      httpRequestId: data.httpRequestId ?? data.traceId,
      attempt: job.attemptsMade + 1,
      ...(Array.isArray(burst) ? { requests: burst.length } : {}),
    });
    const handler = handlers.get(job.name);
    if (!handler) throw new Error(`no job named ${job.name} runs on queue ${queue}`);
    const end = metrics.jobDuration.startTimer({ queue });
    const took = (outcome: string) => Math.round(end({ outcome }) * 1000);
    try {
      const returned = await handler.run(job);
      log.info({ durationMs: took('completed') }, 'job completed');
      return returned;
    } catch (err) {
      if (err instanceof DelayedError) {
        // The job's code parked it (e.g. until a circuit breaker half-opens): not a failure.
        log.info({ durationMs: took('delayed') }, 'job delayed');
        throw err;
      }
      const scrubbed = scrubJobError(err);
      log.warn({ durationMs: took('failed'), err: (scrubbed as Error).message }, 'job attempt failed');
      throw scrubbed;
    }
  };
}

export async function startWorkers(deps: JobContext): Promise<RunningWorkers> {
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Released by stop() after the Workers and the scheduling queues that use them.
  const connections = connectionsFor(deps.config);
  const workers = [...handlersByQueue(deps)].map(([queue, handlers]) => {
    const worker = new Worker(queue, attemptRunner(queue, handlers, deps.logger), {
      connection: connections.blocking(),
      prefix: queuePrefix(deps.config, queue),
      concurrency: Math.max(...[...handlers.values()].map((h) => h.concurrency)),
      // Stored on each job it takes (processedBy): which process holds a job, for support and the fault suite.
      name: workerId,
      ...WORKER_LOCK_OPTIONS,
    });
    worker.on('error', (err) => deps.logger.warn({ err, queue }, 'worker connection error'));
    // A lost lock lets the job run again elsewhere (harmless, see WORKER_LOCK_OPTIONS) but means this
    // process was too busy to renew it: worth a line.
    worker.on('lockRenewalFailed', (jobIds) => deps.logger.warn({ queue, jobIds }, 'job lock renewal failed'));
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const schedulers = await scheduleJobs(deps.config, connections);
  const heartbeat = await startHeartbeat(deps, workerId);
  return {
    workers,
    redisAnswers: heartbeat.redisAnswers,
    async stop() {
      heartbeat.stop();
      await Promise.all(workers.map((w) => w.close()));
      await Promise.all(schedulers.map((q) => q.close()));
      connections.release();
      await heartbeat.remove();
    },
  };
}

/** Registers every scheduled job (idempotent: every worker process upserts the same schedulers). */
async function scheduleJobs(config: Config, connections: ReturnType<typeof connectionsFor>): Promise<Queue[]> {
  const queues = new Map<string, Queue>();
  for (const job of SCHEDULED_JOBS) {
    let queue = queues.get(job.queue);
    if (!queue) {
      queue = new Queue(job.queue, { connection: connections.blocking(), prefix: queuePrefix(config, job.queue) });
      queues.set(job.queue, queue);
    }
    await queue.upsertJobScheduler(
      job.name,
      { every: job.everyMs },
      { name: job.name, opts: { attempts: job.retry.attempts, backoff: job.retry.backoff, ...job.cleanUp } },
    );
  }
  return [...queues.values()];
}

/** This process's score in Redis's heartbeat set, refreshed every HEARTBEAT_INTERVAL_MS. */
async function startHeartbeat(deps: JobContext, workerId: string) {
  const redis: RedisClient = createRedis(deps.config, 'producer');
  await untilReady(redis);
  const heartbeat = () =>
    beat(redis, deps.config.QUEUE_PREFIX, workerId).catch((err: Error) =>
      deps.logger.warn({ err: err.message }, 'heartbeat failed'),
    );
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), HEARTBEAT_INTERVAL_MS);
  return {
    redisAnswers: () =>
      Promise.race([
        redis.ping().then((reply) => reply === 'PONG'),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000).unref()),
      ]).catch(() => false),
    stop: () => clearInterval(timer),
    async remove() {
      await removeBeat(redis, deps.config.QUEUE_PREFIX, workerId).catch(() => undefined);
      redis.disconnect();
    },
  };
}
