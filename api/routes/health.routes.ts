// Liveness, readiness and Prometheus metrics.
import { Router } from 'express';
import type { RedisClient } from '../../shared/platform/redis';
import type { Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import { AppError } from '../../shared/platform/errors';
import { liveWorkerCount } from '../../shared/platform/heartbeat';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';
import type { JobQueues } from '../../shared/platform/queues';
import type { Logger } from '../../shared/platform/logger';
import type { Metrics } from '../../shared/platform/metrics';
import { digestsEqual, digest } from '../../shared/auth/secrets';

const CHECK_TIMEOUT_MS = 1_000;

function withTimeout<T>(p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('timed out')), CHECK_TIMEOUT_MS).unref()),
  ]);
}

export interface HealthDeps {
  config: Config;
  logger: Logger;
  db: Database;
  redis: RedisClient;
  queues: JobQueues;
  metrics: Metrics;
  /** True once the process is shutting down: readiness then answers 503. */
  stopping?: () => boolean;
  /** Extra gauges read at scrape time (circuit breakers of an in-process worker). */
  collectors?: (() => void)[];
}

export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  // Readiness of this API process: can it answer? PostgreSQL and Redis are needed by most requests;
  // workers are not (status, lists, notes and statements need none, and a queued write without a
  // worker answers 503 result_pending with its Location), so their presence is reported, never
  // failing: an API pod stays in its Service while the workers restart. A stopping process answers
  // 503 at once, so that the load balancer takes it out before its listener closes.
  router.get('/readyz', async (_req, res) => {
    const [postgres, redis, workers] = await Promise.allSettled([
      withTimeout(deps.db.pool.query('SELECT 1')),
      withTimeout(deps.redis.ping()),
      withTimeout(liveWorkerCount(deps.redis, deps.config.QUEUE_PREFIX)),
    ]);
    const checks = { postgres, redis };
    const names = ['postgres', 'redis'] as const;
    // Anyone may ask, so the answer names the failing checks only; why they fail (host names, ports,
    // driver messages) goes to the log.
    const report = {
      ...Object.fromEntries(
        names.map((n): [string, string] => [n, checks[n].status === 'fulfilled' ? 'ok' : 'failing']),
      ),
      workers: workers.status === 'fulfilled' && workers.value > 0 ? 'ok' : 'none',
    };
    const failing = names.filter((n) => checks[n].status === 'rejected');
    if (failing.length) {
      const reasons = Object.fromEntries(
        names.flatMap((n) => {
          const c = checks[n];
          return c.status === 'rejected' ? [[n, String(c.reason)]] : [];
        }),
      );
      deps.logger.warn({ failing: reasons }, 'not ready');
    }
    const stopping = deps.stopping?.() ?? false;
    const status = stopping ? 'stopping' : failing.length ? 'unavailable' : 'ready';
    deps.metrics.readinessChecks.inc({ status });
    res.status(status === 'ready' ? 200 : 503).json({ status, failing, checks: report });
  });

  router.get('/metrics', async (req, res) => {
    authorizeMetrics(deps.config, req.get('authorization'));
    await collectGauges(deps);
    res.type(deps.metrics.registry.contentType).send(await deps.metrics.registry.metrics());
  });

  return router;
}

/** /metrics takes `Authorization: Bearer <METRICS_TOKEN>`; without a configured token it is closed. */
function authorizeMetrics(config: Config, header: string | undefined): void {
  const given = /^Bearer\s+(\S+)$/i.exec(header ?? '')?.[1];
  if (!config.METRICS_TOKEN || !given || !digestsEqual(digest(given), digest(config.METRICS_TOKEN))) {
    throw new AppError(401, 'not_authenticated', 'Metrics need Authorization: Bearer <METRICS_TOKEN>.');
  }
}

async function collectGauges(deps: HealthDeps): Promise<void> {
  const { metrics, queues, db } = deps;
  await Promise.all(
    REQUEST_QUEUES.map(async (queue) => {
      const counts = await withTimeout(
        queues.queue(queue).getJobCounts('waiting', 'active', 'delayed', 'completed', 'failed'),
      ).catch(() => undefined);
      for (const [state, n] of Object.entries(counts ?? {})) {
        metrics.queueJobs.set({ queue, state }, n);
      }
    }),
  );
  metrics.dbPool.set({ state: 'total' }, db.pool.totalCount);
  metrics.dbPool.set({ state: 'idle' }, db.pool.idleCount);
  metrics.dbPool.set({ state: 'waiting' }, db.pool.waitingCount);
  for (const collect of deps.collectors ?? []) collect();
}
