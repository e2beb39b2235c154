// The client when things go wrong between it and the service: a 503 storm (refused, lost answers,
// dropped connections), a token expiring mid-run, a SIGKILL and a Ctrl-C halfway, each followed by
// the proof that every line arrived exactly once.
import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';
import {
  clientWorld,
  readResults,
  runClient,
  startClient,
  summaryOf,
  transaction,
  writeLines,
  type ClientWorld,
} from './client.fixture';
import { startFaultProxy, type Fault, type FaultProxy } from './fault-proxy';

let app: TestApp;
let world: ClientWorld;
const proxies: FaultProxy[] = [];

beforeAll(async () => {
  app = await startTestApp({}, { workers: true });
  world = await clientWorld(app, 6);
});
afterAll(async () => {
  await Promise.all(proxies.map((p) => p.close()));
  await app.close();
  rmSync(world.dir, { recursive: true, force: true });
});

async function proxy(target: string, choose: Parameters<typeof startFaultProxy>[1]): Promise<FaultProxy> {
  const p = await startFaultProxy(target, choose);
  proxies.push(p);
  return p;
}

const isWrite = (path: string) => path.startsWith('/v1/data-import/');

/** `count` transactions spread over the world's accounts, ids unique to `tag`. */
function transactionsFile(
  tag: string,
  count: number,
  supplier = world.tenant.supplier,
  accounts = world.accounts,
): string {
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify(transaction(supplier, accounts[i % accounts.length]!, `${tag}-${i}`, `${i}.25`)),
  );
  return writeLines(world.dir, `${tag}.ndjson`, lines);
}

async function storedIds(app: TestApp, supplier: string, tag: string): Promise<string[]> {
  const { rows } = await app.db.pool.query<{ transaction_id: string }>(
    `SELECT t.transaction_id FROM transactions t JOIN accounts a ON a.id = t.account_id
       JOIN account_import_processes p ON p.id = a.process_id
      WHERE p.supplier_code = $1 AND t.transaction_id LIKE $2`,
    [supplier, `${tag}-%`],
  );
  return rows.map((r) => r.transaction_id);
}

const journalEntries = (dir: string) =>
  readFileSync(path.join(dir, 'journal.ndjson'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { e: string; key: string | null; lines?: number[]; final?: number[] });

const exactlyOnce = (ids: string[], tag: string, count: number) =>
  expect([...ids].sort()).toEqual(Array.from({ length: count }, (_, i) => `${tag}-${i}`).sort());

it('rides out a 503 storm with the same Idempotency-Key, honouring Retry-After, and doubles nothing', async () => {
  let writes = 0;
  const faults = ['reject-503', 'lose-answer', 'drop', 'pass'] as const;
  const p = await proxy(app.baseUrl, (req) => (isWrite(req.url!) && writes < 16 ? faults[writes++ % 4]! : 'pass'));
  const file = transactionsFile('STORM', 60);
  const journal = path.join(world.dir, 'storm');

  const run = await runClient(p.baseUrl, world.tenant.apiKey, [
    'send',
    'transactions',
    file,
    '--journal',
    journal,
    '--batch',
    '5',
    '--concurrency',
    '4',
    '--json',
  ]);

  expect(run.code).toBe(0);
  // A lost answer is replayed from the service's stored result: added, not "already exists".
  expect(summaryOf(run)).toMatchObject({ succeeded: 60, skipped: 0, failed: 0, unprocessed: 0 });
  expect(summaryOf(run).retries).toBeGreaterThanOrEqual(12);
  exactlyOnce(await storedIds(app, world.tenant.supplier, 'STORM'), 'STORM', 60);
  const attempts = p.log.filter((e) => isWrite(e.path));
  expect(new Set(attempts.map((e) => e.runId))).toEqual(new Set([summaryOf(run).run_id]));
  for (const [i, e] of attempts.entries()) {
    if (e.status !== 503) continue;
    const next = attempts.slice(i + 1).find((later) => later.key === e.key);
    expect(next).toBeDefined();
    expect(next!.at - e.at).toBeGreaterThanOrEqual(950);
  }
});

it('retries a 2xx that is empty, not JSON or short of one result per item with its key, and resume re-sends lines that never had a real answer', async () => {
  // Every write answered for the service with a 201 that proves nothing, and no time to retry.
  let writes = 0;
  const unusable: Fault[] = [
    { answer: 201, raw: '' },
    { answer: 201, raw: 'OK' },
    { answer: 201, body: { results: [] } },
  ];
  const broken = await proxy(app.baseUrl, (req) => (isWrite(req.url!) ? unusable[writes++ % 3]! : 'pass'));
  const file = transactionsFile('EMPTY2XX', 30);
  const journal = path.join(world.dir, 'empty-2xx');

  const run = await runClient(broken.baseUrl, world.tenant.apiKey, [
    'send',
    'transactions',
    file,
    '--journal',
    journal,
    '--batch',
    '5',
    '--retry-deadline',
    '0',
    '--json',
  ]);

  expect(summaryOf(run)).toMatchObject({ succeeded: 0, failed: 0, unprocessed: 30 });
  expect(run.code).toBe(1);
  expect(readResults(journal, 'succeeded')).toEqual([]);
  expect(await storedIds(app, world.tenant.supplier, 'EMPTY2XX')).toEqual([]);

  // Resumed where the service does the work but its first answers arrive short of their results.
  let later = 0;
  const short = await proxy(app.baseUrl, (req) =>
    isWrite(req.url!) && later++ < 3 ? { rewrite: () => ({ results: [] }) } : 'pass',
  );
  const resumed = await runClient(short.baseUrl, world.tenant.apiKey, ['resume', journal, '--json']);

  expect(summaryOf(resumed)).toMatchObject({ succeeded: 30, skipped: 0, failed: 0, unprocessed: 0 });
  expect(resumed.code).toBe(0);
  exactlyOnce(await storedIds(app, world.tenant.supplier, 'EMPTY2XX'), 'EMPTY2XX', 30);
  const attempts = short.log.filter((e) => isWrite(e.path));
  for (const [i, e] of attempts.entries()) {
    if (typeof e.fault === 'object') expect(attempts.slice(i + 1).some((next) => next.key === e.key)).toBe(true);
  }
});

it('renews a token that expires mid-run by refresh token, signs in again when a refresh is refused, and loses no batch', async () => {
  const shortLived = await startTestApp({ TOKEN_TTL_SECONDS: '1' }, { workers: true });
  const w = await clientWorld(shortLived, 4);
  try {
    let writes = 0;
    let refreshes = 0;
    // The third write waits longer than a token lives, so it reaches the service with an expired one;
    // the second refresh is refused as if reused, so the client must sign in with the key again.
    const p = await proxy(shortLived.baseUrl, (req, body) => {
      if (isWrite(req.url!)) return { holdMs: writes++ === 2 ? 1500 : 150 };
      if (body.includes('"refreshToken":"') && ++refreshes === 2) {
        return {
          answer: 200,
          body: {
            data: null,
            errors: [{ message: 'Refresh token reused.', extensions: { code: 'refresh_token_reused' } }],
          },
        };
      }
      return 'pass';
    });
    const file = transactionsFile('TTL', 40, w.tenant.supplier, w.accounts);

    const run = await runClient(p.baseUrl, w.tenant.apiKey, [
      'send',
      'transactions',
      file,
      '--runs-dir',
      w.dir,
      '--batch',
      '4',
      '--concurrency',
      '2',
      '--json',
    ]);

    expect(summaryOf(run)).toMatchObject({ succeeded: 40, failed: 0, unprocessed: 0 });
    expect(run.code).toBe(0);
    exactlyOnce(await storedIds(shortLived, w.tenant.supplier, 'TTL'), 'TTL', 40);
    expect(p.log.some((e) => isWrite(e.path) && e.status === 401)).toBe(true);
    const signIns = p.log.filter((e) => e.body?.includes('"APIKey":"'));
    const refused = p.log.findIndex(
      (e) => e.status === 200 && e.body?.includes('refreshToken":"') && typeof e.fault === 'object',
    );
    expect(refused).toBeGreaterThan(0);
    expect(signIns.some((e) => p.log.indexOf(e) > refused)).toBe(true);
    expect(new Set(p.log.filter((e) => isWrite(e.path)).map((e) => e.authorization)).size).toBeGreaterThan(1);
  } finally {
    await shortLived.close();
    rmSync(w.dir, { recursive: true, force: true });
  }
});

it('after a SIGKILL halfway, resume re-sends the open requests with their keys and every line lands once', async () => {
  const p = await proxy(app.baseUrl, (req) => (isWrite(req.url!) ? { holdMs: 100 } : 'pass'));
  const file = transactionsFile('KILL', 300);
  const journal = path.join(world.dir, 'killed');
  const client = startClient(p.baseUrl, world.tenant.apiKey, [
    'send',
    'transactions',
    file,
    '--journal',
    journal,
    '--batch',
    '10',
    '--concurrency',
    '3',
  ]);
  await until('a few finished requests', () =>
    journalEntries(journal).filter((e) => e.e === 'done').length >= 8 ? true : undefined,
  );
  process.kill(client.pid, 'SIGKILL');
  expect((await client.done).signal).toBe('SIGKILL');

  const entries = journalEntries(journal);
  const closed = new Set(entries.filter((e) => e.e === 'done').map((e) => e.key));
  const open = entries.filter((e) => e.e === 'req' && !closed.has(e.key)).map((e) => e.key!);
  expect(open.length).toBeGreaterThan(0);
  const before = p.log.length;

  const resumed = await runClient(p.baseUrl, world.tenant.apiKey, ['resume', journal, '--json']);

  expect(resumed.code).toBe(0);
  expect(summaryOf(resumed)).toMatchObject({ succeeded: 300, failed: 0, unprocessed: 0 });
  const resentKeys = new Set(p.log.slice(before).map((e) => e.key));
  expect(open.filter((key) => !resentKeys.has(key))).toEqual([]);
  const lines = readResults(journal, 'succeeded').map((r) => r.line);
  expect(new Set(lines).size).toBe(300);
  expect(lines).toHaveLength(300);
  exactlyOnce(await storedIds(app, world.tenant.supplier, 'KILL'), 'KILL', 300);
});

it('stops cleanly on Ctrl-C with exit code 3, says how to resume, and resume --latest finishes the run', async () => {
  const p = await proxy(app.baseUrl, (req) => (isWrite(req.url!) ? { holdMs: 100 } : 'pass'));
  const file = transactionsFile('SIGINT', 200);
  const runsDir = path.join(world.dir, 'runs-sigint');
  const client = startClient(p.baseUrl, world.tenant.apiKey, [
    'send',
    'transactions',
    file,
    '--runs-dir',
    runsDir,
    '--batch',
    '10',
    '--concurrency',
    '2',
  ]);
  await until('the first finished requests', () =>
    p.log.filter((e) => e.status === 201).length >= 4 ? true : undefined,
  );
  process.kill(client.pid, 'SIGINT');
  const stopped = await client.done;

  expect(stopped.code).toBe(3);
  const resumeHint = /data-import-client resume (\S+)/.exec(stopped.stdout);
  expect(resumeHint).not.toBeNull();
  const journal = resumeHint![1]!;
  expect(readResults(journal, 'unprocessed').length).toBeGreaterThan(0);
  expect(readResults(journal, 'succeeded').length + readResults(journal, 'unprocessed').length).toBe(200);

  const resumed = await runClient(p.baseUrl, world.tenant.apiKey, [
    'resume',
    '--latest',
    '--runs-dir',
    runsDir,
    '--json',
  ]);
  expect(summaryOf(resumed)).toMatchObject({ journal, succeeded: 200, unprocessed: 0, exit_code: 0 });
  expect(readResults(journal, 'unprocessed')).toEqual([]);
  exactlyOnce(await storedIds(app, world.tenant.supplier, 'SIGINT'), 'SIGINT', 200);
});
