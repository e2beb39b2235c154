// Everything the fault suite breaks, private to it: its own PostgreSQL cluster and redis-server, the
// API and N workers as child processes, and a fake Stripe in this process. Nothing here talks to the
// machine's shared PostgreSQL (5432) or Redis (6379).
import { mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { applyFile } from '../../../shared/admin/apply.use-case';
import { createDatabase, type Database } from '../../../shared/platform/db';

import { obtainToken } from '../../helpers/app';
import { uniqueSuffix } from '../../helpers/context';
import { startFakeStripe, type FakeStripe } from '../../helpers/fake-stripe';
import { freePort } from './ports';
import { createPrivatePostgres, type PrivatePostgres } from './private-postgres';
import { createPrivateRedis, type PrivateRedis } from './private-redis';
import { serviceProcess, type ServiceProcess } from './service-process';
import { WORKER_QUEUES } from '../../../shared/catalog/jobs';

export const QUEUE_PREFIX = '{faults}';
const METRICS_TOKEN = 'faults-metrics-token-0123456789';

export interface StackOptions {
  workers: number;
  /** The API's bounded wait for a queued result (RESULT_WAIT_MS). */
  resultWaitMs: number;
  vendorTimeoutMs: number;
}

export interface FaultStack {
  pg: PrivatePostgres;
  redis: PrivateRedis;
  fake: FakeStripe;
  api: ServiceProcess;
  workers: ServiceProcess[];
  baseUrl: string;
  /** This process's handle on the private database: set-up and invariant checks. */
  db: Database;
  options: StackOptions;
  logDir: string;
  /**
   * The jobs held by any worker in any queue, each with the pid of the worker process that took it
   * (from the worker name BullMQ stores on the job); a job id is its (first) request's result-row id.
   */
  heldJobs(): Promise<{ queue: string; id: string; pid: number }[]>;
  /** Of these requests, the ones without a stored answer yet. */
  unfinishedRequests(ids: string[]): Promise<string[]>;
  /** The requests these jobs carry (a burst's job carries several: their rows name it) without an answer yet. */
  unfinishedRequestsOfJobs(jobIds: string[]): Promise<string[]>;
  /** Of these jobs, the ones that carry a request without an answer yet. */
  unfinishedJobs(jobIds: string[]): Promise<string[]>;
  /** The longest event-loop delay each running worker saw since the last scrape of its /metrics, in ms. */
  workerEventLoopLagMs(): Promise<number[]>;
  /**
   * How often a worker's processor finished each job attempt (completed or failed), keyed
   * `<job id>#<trace id>#<attempt>`, read from the workers' own "job completed" / "job attempt failed"
   * log lines. A retry is a new attempt, a parked job logs neither, and a job re-added by a later HTTP
   * request carries that request's trace id (the suite's clients send no X-Request-Id). So the same
   * key finishing twice means one job ran twice, as it does when a live worker's lock lapses.
   */
  finishedAttempts: Map<string, number>;
  /** The STRIPE breaker state each worker process reports on its /metrics. */
  breakerStates(): Promise<(string | undefined)[]>;
  createTenant(accounts: number): Promise<Tenant>;
  close(): Promise<void>;
}

export interface Tenant {
  supplier: string;
  apiKey: string;
  token: string;
  accounts: { external: string; id: number }[];
}

/** The open statement period of every fault-suite account starts here; transactions are dated inside it. */
export const OPEN_FROM = '2024-01-01';

export async function startFaultStack(options: StackOptions): Promise<FaultStack> {
  const logDir = mkdtempSync('/tmp/faults-logs-');
  const [pg, redis, apiPort] = await Promise.all([createPrivatePostgres(), createPrivateRedis(), freePort()]);
  const fake = await startFakeStripe({ secretKey: `sk_test_${uniqueSuffix()}`, slowMs: options.vendorTimeoutMs * 4 });
  const databaseUrl = `${pg.baseUrl}/data_import_faults`;
  const env = {
    DATABASE_URL: databaseUrl,
    REDIS_URL: redis.url,
    QUEUE_PREFIX,
    TOKEN_SECRET: `faults-token-secret-${uniqueSuffix()}-long-enough`,
    LOG_LEVEL: 'warn',
    RESULT_WAIT_MS: String(options.resultWaitMs),
    STRIPE_API_BASE: fake.url,
    STRIPE_SECRET_KEY: fake.secretKey,
    VENDOR_TIMEOUT_MS: String(options.vendorTimeoutMs),
    METRICS_TOKEN,
    HOST: '127.0.0.1',
  };
  const baseUrl = `http://127.0.0.1:${apiPort}`;
  const api = serviceProcess({
    name: 'api',
    entry: 'api/main.ts',
    env: { ...env, PORT: String(apiPort) },
    logFile: path.join(logDir, 'api.log'),
    ready: async () => (await fetch(`${baseUrl}/healthz`)).ok,
  });
  const finishedAttempts = new Map<string, number>();
  const countAttempt = (line: string) => {
    if (!line.includes('"jobId"')) return;
    let entry: { msg?: string; jobId?: string; httpRequestId?: string; attempt?: number };
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      return;
    }
    if (entry.msg !== 'job completed' && entry.msg !== 'job attempt failed') return;
    const key = `${entry.jobId}#${entry.httpRequestId}#${entry.attempt}`;
    finishedAttempts.set(key, (finishedAttempts.get(key) ?? 0) + 1);
  };
  const metricsPorts = await Promise.all(Array.from({ length: options.workers }, freePort));
  const metricsOf = async (port: number) => {
    const res = await fetch(`http://127.0.0.1:${port}/metrics`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      signal: AbortSignal.timeout(2_000),
    });
    return res.ok ? res.text() : undefined;
  };
  const workers = metricsPorts.map((port, i) =>
    serviceProcess({
      name: `worker-${i + 1}`,
      entry: 'worker/main.ts',
      // At info the worker logs one line per finished job attempt, which finishedAttempts counts.
      env: { ...env, LOG_LEVEL: 'info', WORKER_METRICS_PORT: String(port) },
      logFile: path.join(logDir, `worker-${i + 1}.log`),
      onLine: countAttempt,
      // The metrics server starts after every BullMQ worker is ready.
      ready: async () => (await metricsOf(port)) !== undefined,
    }),
  );
  // The API applies the migrations (creating the database) before the workers race it to them.
  await api.start();
  await Promise.all(workers.map((w) => w.start()));
  const db = createDatabase({ DATABASE_URL: databaseUrl, DB_POOL_SIZE: 4 });
  const probe = new Redis(redis.port, '127.0.0.1', { maxRetriesPerRequest: 1, retryStrategy: () => 200 });
  probe.on('error', () => undefined);

  return {
    pg,
    redis,
    fake,
    api,
    workers,
    baseUrl,
    db,
    options,
    logDir,
    finishedAttempts,
    async heldJobs() {
      const held = await Promise.all(
        WORKER_QUEUES.map(async (queue) => {
          const ids = await probe.lrange(`${QUEUE_PREFIX}:${queue}:active`, 0, -1);
          const names = await Promise.all(ids.map((id) => probe.hget(`${QUEUE_PREFIX}:${queue}:${id}`, 'pb')));
          // Worker names are `<host>:<pid>:<random>` (worker/worker.ts).
          return ids.map((id, i) => ({ queue, id, pid: Number(names[i]?.split(':')[1]) }));
        }),
      );
      return held.flat();
    },
    async unfinishedRequests(ids) {
      const { rows } = await db.pool.query<{ id: string }>(
        'SELECT id FROM request_results WHERE id = ANY($1::text[]) AND finished_at IS NULL',
        [ids],
      );
      return rows.map((r) => r.id);
    },
    async unfinishedRequestsOfJobs(jobIds) {
      const { rows } = await db.pool.query<{ id: string }>(
        `SELECT id FROM request_results
          WHERE (id = ANY($1::text[]) OR job_id = ANY($1::text[])) AND finished_at IS NULL`,
        [jobIds],
      );
      return rows.map((r) => r.id);
    },
    async unfinishedJobs(jobIds) {
      const { rows } = await db.pool.query<{ job: string }>(
        `SELECT DISTINCT j AS job FROM request_results, unnest(ARRAY[id, job_id]) AS j
          WHERE (id = ANY($1::text[]) OR job_id = ANY($1::text[])) AND finished_at IS NULL AND j = ANY($1::text[])`,
        [jobIds],
      );
      return rows.map((r) => r.job);
    },
    async workerEventLoopLagMs() {
      const texts = await Promise.all(
        metricsPorts.filter((_, i) => workers[i]!.running()).map((port) => metricsOf(port).catch(() => undefined)),
      );
      return texts.map((text) =>
        Math.round(Number(/^nodejs_eventloop_lag_max_seconds (\S+)$/m.exec(text ?? '')?.[1] ?? NaN) * 1000),
      );
    },
    async breakerStates() {
      return Promise.all(
        metricsPorts.map(async (port, i) => {
          if (!workers[i]!.running()) return undefined;
          const text = await metricsOf(port).catch(() => undefined);
          return /circuit_breaker_state\{vendor="STRIPE",state="(\w+)"\} 1\b/.exec(text ?? '')?.[1];
        }),
      );
    },
    async createTenant(count) {
      const suffix = uniqueSuffix();
      const supplier = `FAULTS_${suffix}`;
      const apiKey = `faults-key-${suffix}-${'k'.repeat(32)}`;
      const externals = Array.from({ length: count }, (_, i) => `F-${suffix}-${i}`);
      const report = await applyFile(db, {
        suppliers: [{ code: supplier, status: 'Ongoing', document_root: `faults/${suffix}` }],
        organisations: [{ name: `faults-org-${suffix}`, api_key: apiKey, suppliers: [supplier] }],
        accounts: externals.map((external) => ({
          import_supplier: supplier,
          external_account_number: external,
          state: 'imported' as const,
          open_statement_from: OPEN_FROM,
        })),
      });
      const numbers = report.accounts.map((a) => a.platform_account_number!);
      const rows = await db.prisma.account.findMany({ where: { platformAccountNumber: { in: numbers } } });
      const idOf = new Map(rows.map((r) => [r.platformAccountNumber, r.id]));
      const res = await obtainToken(baseUrl, { APIKey: apiKey });
      const token = res.body?.data?.obtainToken?.token as string | undefined;
      if (!token) throw new Error(`sign-in failed: ${JSON.stringify(res.body)}`);
      return {
        supplier,
        apiKey,
        token,
        accounts: externals.map((external, i) => ({ external, id: idOf.get(numbers[i]!)! })),
      };
    },
    async close() {
      probe.disconnect();
      await Promise.all([api, ...workers].map((p) => p.dispose()));
      await db.close();
      await fake.close();
      await Promise.all([pg.destroy(), redis.destroy()]);
      if (!process.env.FAULTS_KEEP_LOGS) rmSync(logDir, { recursive: true, force: true });
    },
  };
}
