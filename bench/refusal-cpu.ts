// The API's own CPU per write request, without PostgreSQL or the worker in the way: one compiled API
// process (dist/, built first) answers an authenticated POST that its query-parameter check refuses
// (`validate-account/?x=1`: authentication, the organisation rate limit, the body's read and scan, the
// run id, the check, the error body, the log line and the metrics), kept busy by 64 requests at a time
// over 16 keep-alive connections; CPU from /proc. What a request's plumbing costs, for comparing code.
// Usage: npx tsx bench/refusal-cpu.ts (BENCH_DATABASE_URL as for bench/run.ts; REFUSAL_CPU_SECONDS, 8 by default).
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Pool } from 'undici';
import { prepareFixtures } from './fixtures';
import { REDIS_URL } from './measure';
import { cpuSeconds } from './proc';
import { build, freePort, obtainToken, spawnService, untilReady } from './service';

const PATH = '/v1/data-import/validate-account/?x=1';

async function main(): Promise<void> {
  const values = {
    seconds: process.env.REFUSAL_CPU_SECONDS ?? '8',
    database: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import_bench',
  };
  const name = decodeURIComponent(new URL(values.database).pathname.slice(1));
  if (!name.startsWith('data_import_bench')) throw new Error(`the database must be named data_import_bench*`);
  const f = await prepareFixtures(values.database, 1, 1);
  await build();
  const port = await freePort();
  const env = {
    DATABASE_URL: values.database,
    REDIS_URL,
    QUEUE_PREFIX: `{refusal-cpu-${process.pid}}`,
    ORG_RATE_LIMIT_PER_MINUTE: String(1e9),
  };
  const logFile = path.join(tmpdir(), `refusal-cpu-${process.pid}.log`);
  const api = spawnService('api', { runtime: 'dist', env, port, logFile });
  try {
    await untilReady(api.base, 60_000, '/healthz');
    const token = await obtainToken(api.base, f.apiKey);
    const pool = new Pool(api.base, { connections: 16, pipelining: 4 });
    const headers = { 'content-type': 'application/json', authorization: `Token ${token}` };
    const once = async () => {
      const res = await pool.request({ path: PATH, method: 'POST', headers, body: '{}' });
      await res.body.text();
      if (res.statusCode !== 400) throw new Error(`answered ${res.statusCode}, expected 400`);
    };
    const load = async (ms: number) => {
      let requests = 0;
      const end = Date.now() + ms;
      const client = async () => {
        // Bounded by the deadline.
        while (Date.now() < end) {
          await once();
          requests++;
        }
      };
      await Promise.all(Array.from({ length: 64 }, client));
      return requests;
    };
    await load(2_000);
    const cpu0 = cpuSeconds(api.pid);
    const requests = await load(Number(values.seconds) * 1000);
    const cpu = cpuSeconds(api.pid) - cpu0;
    await pool.close();
    console.log(`${requests} refused writes, API CPU ${((cpu * 1e6) / requests).toFixed(0)} µs per request`);
  } finally {
    await api.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
