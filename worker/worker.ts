// Starts one BullMQ Worker per queue, each running its processor with the shared context; logs one
// line per job attempt, records job durations, and keeps a heartbeat in Redis for /readyz.
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { DelayedError, Queue, Worker, type Job } from 'bullmq';
import {
  connectionsFor,
  MAINTENANCE,
  QUEUE_NAMES,
  WORKER_LOCK_OPTIONS,
  type QueuedRequestData,
} from '../shared/platform/jobs';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import { beat, HEARTBEAT_INTERVAL_MS, removeBeat } from '../shared/platform/heartbeat';
import type { Logger } from '../shared/platform/logger';
import { processMetrics } from '../shared/platform/metrics';
import { createRedis, untilReady } from '../shared/platform/redis';
import { schedulePurge } from '../shared/requests/purge-answers';
import { scrubJobError } from './job-failure';
import { PROCESSORS } from './processors';
import type { WorkerContext } from './worker-context';

export interface RunningWorkers {
  workers: Worker[];
  /** Whether this process's Redis connection answers PING within a second: the worker's liveness. */
  redisAnswers(): Promise<boolean>;
  /** Stops taking jobs, lets running ones finish, closes connections. */
  stop(): Promise<void>;
}

export async function startWorkers(deps: { config: Config; db: Database; logger: Logger }): Promise<RunningWorkers> {
  const ctx: WorkerContext = { ...deps };
  const metrics = processMetrics();
  const workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  // Released by stop() after the Workers and the maintenance queue that use them.
  const connections = connectionsFor(deps.config);
  const workers = QUEUE_NAMES.filter((name) => PROCESSORS[name]).map((name) => {
    const processor = PROCESSORS[name]!;
    const run = async (job: Job) => {
      const data = job.data as Partial<QueuedRequestData>;
      const log = deps.logger.child({
        queue: name,
        jobId: job.id,
        traceId: data.traceId,
        attempt: job.attemptsMade + 1,
      });
      const end = metrics.jobDuration.startTimer({ queue: name });
      try {
        const returned = await processor(job, { ...ctx, logger: log });
        log.info({ durationMs: Math.round(end({ outcome: 'completed' }) * 1000) }, 'job completed');
        return returned;
      } catch (err) {
        if (err instanceof DelayedError) {
          // The processor parked the job (e.g. until a circuit breaker half-opens): not a failure.
          log.info({ durationMs: Math.round(end({ outcome: 'delayed' }) * 1000) }, 'job delayed');
          throw err;
        }
        const scrubbed = scrubJobError(err);
        log.warn(
          { durationMs: Math.round(end({ outcome: 'failed' }) * 1000), err: (scrubbed as Error).message },
          'job attempt failed',
        );
        throw scrubbed;
      }
    };
    const worker = new Worker(name, run, {
      connection: connections.blocking(),
      prefix: deps.config.QUEUE_PREFIX,
      // The scheduled jobs need no parallelism; every request queue gets the configured concurrency.
      concurrency: name === MAINTENANCE.queue ? 1 : deps.config.WORKER_CONCURRENCY,
      // Stored on each job it takes (processedBy): which process holds a job, for support and the fault suite.
      name: workerId,
      ...WORKER_LOCK_OPTIONS,
    });
    worker.on('error', (err) => deps.logger.warn({ err, queue: name }, 'worker connection error'));
    // A lost lock lets the job run again elsewhere (harmless, see WORKER_LOCK_OPTIONS) but means this
    // process was too busy to renew it: worth a line.
    worker.on('lockRenewalFailed', (jobIds) => deps.logger.warn({ queue: name, jobIds }, 'job lock renewal failed'));
    return worker;
  });
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const maintenance = new Queue(MAINTENANCE.queue, {
    connection: connections.blocking(),
    prefix: deps.config.QUEUE_PREFIX,
  });
  await schedulePurge(maintenance);

  const redis = createRedis(deps.config, 'producer');
  await untilReady(redis);
  const heartbeat = () =>
    beat(redis, deps.config.QUEUE_PREFIX, workerId).catch((err: Error) =>
      deps.logger.warn({ err: err.message }, 'heartbeat failed'),
    );
  await heartbeat();
  const timer = setInterval(() => void heartbeat(), HEARTBEAT_INTERVAL_MS);

  return {
    workers,
    redisAnswers: () =>
      Promise.race([
        redis.ping().then((reply) => reply === 'PONG'),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 1_000).unref()),
      ]).catch(() => false),
    async stop() {
      clearInterval(timer);
      await Promise.all(workers.map((w) => w.close()));
      await maintenance.close();
      connections.release();
      await removeBeat(redis, deps.config.QUEUE_PREFIX, workerId).catch(() => undefined);
      redis.disconnect();
    },
  };
}
