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
  /** Extra gauges read at scrape time (circuit breakers of an in-process worker). */
  collectors?: (() => void)[];
}

export function healthRoutes(deps: HealthDeps): Router {
  const router = Router();

  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });

  router.get('/readyz', async (_req, res) => {
    const checks = await Promise.allSettled([
      withTimeout(deps.db.pool.query('SELECT 1')),
      withTimeout(deps.redis.ping()),
      withTimeout(liveWorkerCount(deps.redis, deps.config.QUEUE_PREFIX)).then((n) => {
        if (n < 1) throw new Error('no worker heartbeat in the last 15 s');
        return n;
      }),
    ]);
    const names = ['postgres', 'redis', 'workers'] as const;
    // Anyone may ask, so the answer names the failing checks only; why they fail (host names, ports,
    // driver messages) goes to the log.
    const report = Object.fromEntries(
      checks.map((c, i): [string, string] => [names[i]!, c.status === 'fulfilled' ? 'ok' : 'failing']),
    );
    const failing = names.filter((_, i) => checks[i]!.status === 'rejected');
    if (failing.length) {
      const reasons = Object.fromEntries(
        checks.flatMap((c, i) => (c.status === 'rejected' ? [[names[i]!, String(c.reason)]] : [])),
      );
      deps.logger.warn({ failing: reasons }, 'not ready');
    }
    res
      .status(failing.length ? 503 : 200)
      .json({ status: failing.length ? 'unavailable' : 'ready', failing, checks: report });
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
