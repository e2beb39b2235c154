// Shutdown and probes as Kubernetes drives them, with real processes: on SIGTERM the API's readiness
// turns 503 while its listener still serves, a queued write still waiting answers 503 result_pending
// with its Location (not an empty reply), and the process exits 0; a worker's /livez answers only while
// its Redis does. Asserted on what the processes answer and log, in order, never on durations.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { createTenant, request, type Json, type TestApp } from '../helpers/app';
import { openTestDb, testDatabaseUrl, uniqueSuffix, type TestDb } from '../helpers/context';
import { startLocalRedis, type LocalRedis } from '../helpers/redis-server';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

const ROOT = path.join(__dirname, '../..');

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

interface LogLine {
  msg?: string;
}

function startProcess(entry: string, env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: testDatabaseUrl,
      HOST: '127.0.0.1',
      QUEUE_PREFIX: `{shutdown-${uniqueSuffix()}}`,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const events: string[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    const parts = (pending + chunk.toString()).split('\n');
    pending = parts.pop() ?? '';
    for (const part of parts) {
      try {
        const line = JSON.parse(part) as LogLine;
        if (line.msg) events.push(`log: ${line.msg}`);
      } catch {
        // not a log line
      }
    }
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, events, exited, stderr: () => stderr };
}

describe('SIGTERM on an API process', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(() => t.db.close());

  it('turns not-ready first, keeps serving through the delay, answers a waiting queued write 503 result_pending with its Location, and exits 0', async () => {
    const port = await freePort();
    // No worker runs and every write goes through the queue: the queued write waits for as long as the
    // process lets it.
    const api = startProcess('api/main.ts', {
      DIRECT_COMMIT: 'off',
      PORT: String(port),
      // Long enough for the probes below on a busy machine.
      SHUTDOWN_DELAY_MS: '10000',
      RESULT_WAIT_MS: '60000',
    });
    try {
      await until('the listening line', () => (api.events.includes('log: api listening') ? true : undefined), 45_000);
      const app = { ...t, baseUrl: `http://127.0.0.1:${port}` } as unknown as TestApp;
      const tenant = await createTenant(app);
      const account = await importedAccount(app, tenant);
      const ready = await request(app.baseUrl, 'GET', '/readyz');
      expect(ready.status).toBe(200);
      expect(ready.body.checks.workers).toBe('none');

      const write = postTransactions(app, tenant.token, envelope(tenant, account, [payment('drained-1')])).then(
        (res: Json) => (api.events.push('answer: queued write'), res),
      );
      await until('the queued write to be waiting', async () => {
        const rows = await t.db.pool.query(
          'SELECT 1 FROM request_results WHERE account_id = $1 AND finished_at IS NULL',
          [account.accountId],
        );
        return rows.rowCount === 1 ? true : undefined;
      });

      api.child.kill('SIGTERM');
      const stopping = await until('readiness 503 stopping', async () => {
        const res = await request(app.baseUrl, 'GET', '/readyz');
        return res.status === 503 ? res : undefined;
      });
      api.events.push('probe: readyz 503');
      expect(stopping.body.status).toBe('stopping');
      // Still serving while not ready: other requests are answered as usual.
      const alive = await request(app.baseUrl, 'GET', '/healthz');
      api.events.push('probe: healthz 200 while stopping');
      expect(alive.status).toBe(200);

      const answer = await write;
      expect(answer.status).toBe(503);
      expect(answer.body.code).toBe('result_pending');
      expect(answer.headers.get('location')).toBe(`/v1/data-import/requests/${answer.body.request_id}/`);
      expect(await api.exited).toBe(0);
      // No worker will ever take this prefix's job: answer the row, so no later sweep meets it.
      await t.db.pool.query(
        `UPDATE request_results SET http_status = 503, finished_at = now() WHERE id = $1 AND finished_at IS NULL`,
        [answer.body.request_id],
      );

      const order = (e: string) => api.events.indexOf(e);
      expect(order('log: stopping: not ready, still serving')).toBeGreaterThanOrEqual(0);
      expect(order('probe: healthz 200 while stopping')).toBeLessThan(order('log: stopping: listener closing'));
      expect(order('answer: queued write')).toBeGreaterThan(order('probe: healthz 200 while stopping'));
    } finally {
      if (api.child.exitCode === null) api.child.kill('SIGKILL');
      await api.exited;
    }
  }, 90_000);
});

describe("a worker's liveness", () => {
  let redis: LocalRedis;
  beforeAll(async () => {
    redis = await startLocalRedis();
  });
  afterAll(() => redis?.stop());

  it('answers /livez 200 while its Redis answers and 503 once Redis is gone', async () => {
    const metricsPort = await freePort();
    const worker = startProcess('worker/main.ts', {
      REDIS_URL: redis.url,
      WORKER_METRICS_PORT: String(metricsPort),
    });
    try {
      await until('workers running', () => (worker.events.includes('log: workers running') ? true : undefined), 45_000);
      const base = `http://127.0.0.1:${metricsPort}`;
      expect((await request(base, 'GET', '/livez')).status).toBe(200);
      await redis.stop();
      const down = await until('livez 503', async () => {
        const res = await request(base, 'GET', '/livez');
        return res.status === 503 ? res : undefined;
      });
      expect(down.body).toEqual({ status: 'unavailable', failing: ['redis'] });
      // The plain health check does not look at Redis: it only says the process answers.
      expect((await request(base, 'GET', '/healthz')).status).toBe(200);
    } finally {
      worker.child.kill('SIGKILL');
      await worker.exited;
    }
  }, 90_000);
});
