// The load generator: a child process of the bench (fork), so its CPU is not the bench's own and the
// service is reached over loopback like any client. It takes one phase spec on IPC, runs it for a
// warm-up and then a measured window, answers with the figures and exits.
import { createHistogram, performance } from 'node:perf_hooks';
import { Pool as PgPool } from 'pg';
import { Pool } from 'undici';
import { accountsLoad, type AccountsResult, type AccountsSpec } from './account-load';
import { CEILING_SQL, ceilingParams, notesBody, statementsBody, transactionsBody, type WriteTarget } from './payloads';

interface Window {
  clients: number;
  warmupMs: number;
  durationMs: number;
}

type WriteKind = 'transactions' | 'notes' | 'statements';

/** Each write endpoint, its body and what a 201 answer says once per item it took. */
const WRITES: Record<WriteKind, { path: string; body: typeof notesBody; added: string }> = {
  transactions: {
    path: '/v1/data-import/transactions/create/',
    body: transactionsBody,
    added: '"TRANSACTION_ADDED_TO_ACCOUNT"',
  },
  notes: { path: '/v1/data-import/notes/create/', body: notesBody, added: '"NOTE_CREATION_SUCCESS"' },
  // Answered with the request itself: one statement_id per statement.
  statements: { path: '/v1/data-import/historical-statements/create/', body: statementsBody, added: '"statement_id"' },
};

export type LoadSpec =
  | (Window & { kind: 'ceiling'; databaseUrl: string; accountIds: number[]; batch: number; runId: string })
  | (Window & {
      kind: WriteKind;
      base: string;
      token: string;
      targets: WriteTarget[];
      batch: number;
      runId: string;
      /**
       * Behave as the spec asks of clients when a worker may die: send an Idempotency-Key and retry a
       * 500 or 503 as it is (honouring Retry-After) until it is answered, for at most this long.
       */
      retryForMs?: number;
    })
  | { kind: 'hold'; base: string; token: string; targets: WriteTarget[]; clients: number; batch: number; runId: string }
  | (Window & { kind: 'status'; base: string; token: string; supplier: string; accounts: number })
  | { kind: 'download'; base: string; token: string; path: string }
  | AccountsSpec;

export interface WindowResult {
  requests: number;
  items: number;
  /** Items acknowledged with 201 at any time, warm-up and answers after the window included. */
  acknowledgedItems: number;
  /** Requests still without a final answer when their retries ran out (retryForMs). */
  unfinished: number;
  retries: number;
  seconds: number;
  errors: number;
  firstError?: string;
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
}

export interface HoldResult {
  /** How many of the simultaneous requests got each status. */
  statuses: Record<string, number>;
  seconds: number;
}

export interface DownloadResult {
  status: number;
  seconds: number;
  bytes: number;
  rows: number;
}

type Outcome = { items: number; error?: string; retries?: number; unfinished?: boolean };
type Attempt = () => Promise<Outcome>;

/** Runs `clients` loops of `attempt` until the window ends; counts what completes inside the window. */
async function runWindow(w: Window, attempt: Attempt): Promise<WindowResult> {
  const start = performance.now();
  const measureFrom = start + w.warmupMs;
  const end = measureFrom + w.durationMs;
  const latency = createHistogram();
  const result: WindowResult = {
    requests: 0,
    items: 0,
    acknowledgedItems: 0,
    unfinished: 0,
    retries: 0,
    seconds: w.durationMs / 1000,
    errors: 0,
    p50Ms: 0,
    p95Ms: 0,
    p99Ms: 0,
    maxMs: 0,
  };
  const loop = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      let outcome: Outcome;
      try {
        outcome = await attempt();
      } catch (err) {
        outcome = { items: 0, error: (err as Error).message };
      }
      const t1 = performance.now();
      result.acknowledgedItems += outcome.error === undefined ? outcome.items : 0;
      result.retries += outcome.retries ?? 0;
      if (outcome.unfinished) result.unfinished += 1;
      // Counted by completion time: the window holds every answer given inside it.
      if (t1 < measureFrom || t1 > end) continue;
      result.requests += 1;
      result.items += outcome.items;
      latency.record(Math.max(1, Math.round((t1 - t0) * 1000)));
      if (outcome.error !== undefined) {
        result.errors += 1;
        result.firstError ??= outcome.error;
      }
    }
  };
  await Promise.all(Array.from({ length: w.clients }, loop));
  const ms = (p: number) => (result.requests ? +(latency.percentile(p) / 1000).toFixed(2) : 0);
  Object.assign(result, { p50Ms: ms(50), p95Ms: ms(95), p99Ms: ms(99), maxMs: ms(100) });
  return result;
}

const occurrences = (text: string, word: string) => text.split(word).length - 1;

async function ceiling(spec: Extract<LoadSpec, { kind: 'ceiling' }>): Promise<WindowResult> {
  const pool = new PgPool({ connectionString: spec.databaseUrl, max: spec.clients });
  // Open every connection before the clock starts.
  await Promise.all(Array.from({ length: spec.clients }, () => pool.connect())).then((cs) =>
    cs.forEach((c) => c.release()),
  );
  let seq = 0;
  try {
    return await runWindow(spec, async () => {
      const n = seq++;
      const accountId = spec.accountIds[n % spec.accountIds.length]!;
      const res = await pool.query(CEILING_SQL, ceilingParams(accountId, spec.runId, n, spec.batch));
      return res.rowCount === spec.batch ? { items: spec.batch } : { items: 0, error: `inserted ${res.rowCount}` };
    });
  } finally {
    await pool.end();
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function http(spec: Extract<LoadSpec, { kind: WriteKind | 'status' }>): Promise<WindowResult> {
  // No body or headers time-out: a retrying client's request may wait the whole RESULT_WAIT_MS.
  const pool = new Pool(spec.base, { connections: spec.clients, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  const headers = { authorization: `Token ${spec.token}`, 'content-type': 'application/json' };
  let seq = 0;
  const attempt: Attempt = async () => {
    const n = seq++;
    if (spec.kind === 'status') {
      const index = 1 + Math.floor(Math.random() * spec.accounts);
      const path = `/v1/data-import/account-transfer-status/${spec.supplier}/EXT-${String(index).padStart(8, '0')}/`;
      const res = await pool.request({ method: 'GET', path, headers });
      const text = await res.body.text();
      return res.statusCode === 200 ? { items: 1 } : { items: 0, error: `${res.statusCode} ${text.slice(0, 300)}` };
    }
    // Consecutive requests go to different accounts: concurrent requests never wait on one account's lock.
    const target = spec.targets[n % spec.targets.length]!;
    const write = WRITES[spec.kind];
    const body = write.body(target, spec.runId, n, spec.batch);
    const path = write.path;
    const retryFor = 'retryForMs' in spec ? spec.retryForMs : undefined;
    const sendHeaders = retryFor === undefined ? headers : { ...headers, 'idempotency-key': `${spec.runId}-${n}` };
    const giveUpAt = performance.now() + (retryFor ?? 0);
    for (let retries = 0; ; retries++) {
      const res = await pool.request({ method: 'POST', path, headers: sendHeaders, body });
      const text = await res.body.text();
      const retryable = res.statusCode === 500 || res.statusCode === 503;
      if (retryable && retryFor !== undefined && performance.now() < giveUpAt) {
        const after = Number(res.headers['retry-after']);
        await sleep(Math.min(Number.isFinite(after) && after > 0 ? after * 1000 : 500, 2_000));
        continue;
      }
      const added = occurrences(text, write.added);
      if (res.statusCode !== 201 || added !== spec.batch) {
        return { items: added, retries, unfinished: retryable, error: `${res.statusCode} ${text.slice(0, 300)}` };
      }
      return { items: added, retries };
    }
  };
  try {
    return await runWindow(spec, attempt);
  } finally {
    await pool.close();
  }
}

async function download(spec: Extract<LoadSpec, { kind: 'download' }>): Promise<DownloadResult> {
  const started = performance.now();
  const res = await fetch(spec.base + spec.path, { headers: { authorization: `Token ${spec.token}` } });
  let bytes = 0;
  let rows = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (const b of chunk) if (b === 0x7b) rows += 1; // one "{" per row
  }
  return { status: res.status, seconds: (performance.now() - started) / 1000, bytes, rows };
}

/** `clients` transactions requests sent at once, each on its own connection; answers when all are answered. */
async function hold(spec: Extract<LoadSpec, { kind: 'hold' }>): Promise<HoldResult> {
  const pool = new Pool(spec.base, { connections: spec.clients, pipelining: 1, headersTimeout: 0, bodyTimeout: 0 });
  const headers = { authorization: `Token ${spec.token}`, 'content-type': 'application/json' };
  const started = performance.now();
  const statuses: Record<string, number> = {};
  try {
    await Promise.all(
      Array.from({ length: spec.clients }, async (_, n) => {
        const body = transactionsBody(spec.targets[n % spec.targets.length]!, spec.runId, n, spec.batch);
        const res = await pool
          .request({ method: 'POST', path: '/v1/data-import/transactions/create/', headers, body })
          .catch(() => undefined);
        await res?.body.text();
        const key = String(res?.statusCode ?? 'no answer');
        statuses[key] = (statuses[key] ?? 0) + 1;
      }),
    );
  } finally {
    await pool.close();
  }
  return { statuses, seconds: (performance.now() - started) / 1000 };
}

export async function runLoad(spec: LoadSpec): Promise<WindowResult | DownloadResult | HoldResult | AccountsResult> {
  if (spec.kind === 'accounts') return accountsLoad(spec);
  if (spec.kind === 'ceiling') return ceiling(spec);
  if (spec.kind === 'download') return download(spec);
  if (spec.kind === 'hold') return hold(spec);
  return http(spec);
}

if (require.main === module) {
  process.once('message', (spec: LoadSpec) => {
    runLoad(spec).then(
      (result) => process.send!({ result }, () => process.exit(0)),
      (err: Error) => process.send!({ error: err.stack ?? err.message }, () => process.exit(1)),
    );
  });
}
