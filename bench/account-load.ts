// The `accounts` phase's load (run in the load generator's child process, bench/load.ts): `clients`
// connections scheduling `count` accounts through POST /v2/data-import/accounts/, each client with up
// to `depth` accounts awaiting PROCESSED, which it polls on the v2 status endpoint. The first look comes
// when most accounts so far had needed longer (FIRST_LOOK_SHARE of the median latency since the start),
// then looks back off from 25 ms (×1.5 up to 500 ms): polling from 25 ms on cost about 7 status
// requests per account, most of the API's and a good part of PostgreSQL's CPU, where the real client
// (client/accounts/account-run.ts) first looks after a second. Latency runs from the schedule request's
// start to the poll that first reads PROCESSED, so it is late by at most one poll interval; an account
// faster than the first look reads that look's time (the figures are percentiles from the median up).
import { createHistogram, performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { accountExternal, scheduleBody } from './account-payloads';

export interface AccountsSpec {
  kind: 'accounts';
  base: string;
  token: string;
  supplier: string;
  runTag: string;
  count: number;
  clients: number;
  depth: number;
  /** Past this wait for one account, it counts as an error. */
  maxWaitMs: number;
}

export interface AccountsResult {
  accounts: number;
  processed: number;
  errors: number;
  firstError?: string;
  seconds: number;
  perSecond: number;
  /** Schedule → PROCESSED. */
  p50Ms: number;
  p95Ms: number;
  p99Ms: number;
  maxMs: number;
  /** The schedule request alone (validation and staging in the API). */
  scheduleP50Ms: number;
  scheduleP99Ms: number;
  statusRequests: number;
}

const FIRST_POLL_MS = 25;
/** The first look, as a share of the median schedule → PROCESSED latency measured so far. */
const FIRST_LOOK_SHARE = 0.8;
const LONGEST_POLL_MS = 500;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the clients have counted so far. */
class Tally {
  readonly latency = createHistogram();
  readonly scheduling = createHistogram();
  processed = 0;
  errors = 0;
  statusRequests = 0;
  firstError?: string;
  fail(message: string): void {
    this.errors += 1;
    this.firstError ??= message;
  }
}

const micros = (since: number) => Math.max(1, Math.round((performance.now() - since) * 1000));

/** How long after `t0` the first look at an account comes: most accounts so far needed that long. */
function firstLookMs(tally: Tally, t0: number): number {
  const medianMs = tally.latency.count ? tally.latency.percentile(50) / 1000 : 0;
  return Math.max(0, t0 + FIRST_LOOK_SHARE * medianMs - performance.now());
}

/** Polls one account's v2 status with back-off until it leaves PENDING and IN_PROGRESS. */
async function waitForProcessed(ctx: Clients, path: string, t0: number): Promise<void> {
  const { pool, headers, tally, spec } = ctx;
  await sleep(firstLookMs(tally, t0));
  for (
    let delay = FIRST_POLL_MS;
    performance.now() - t0 < spec.maxWaitMs;
    delay = Math.min(delay * 1.5, LONGEST_POLL_MS)
  ) {
    await sleep(delay);
    const res = await pool.request({ method: 'GET', path, headers });
    const text = await res.body.text();
    tally.statusRequests += 1;
    const status = res.statusCode === 200 ? (JSON.parse(text) as { status: string }).status : `HTTP ${res.statusCode}`;
    if (status === 'PROCESSED') {
      tally.processed += 1;
      // A long run (100,000 accounts) shows its progress: every 5 % of the count.
      if (tally.processed % Math.max(1, Math.floor(spec.count / 20)) === 0)
        process.stderr.write(`bench: accounts: ${tally.processed} PROCESSED\n`);
      tally.latency.record(micros(t0));
      return;
    }
    if (status !== 'PENDING' && status !== 'IN_PROGRESS') return tally.fail(`${path}: ${status} ${text.slice(0, 300)}`);
  }
  tally.fail(`${path}: not PROCESSED within ${spec.maxWaitMs} ms`);
}

interface Clients {
  spec: AccountsSpec;
  pool: Pool;
  headers: Record<string, string>;
  tally: Tally;
  next: number;
}

/** One of a client's `depth` slots: schedules the next account, waits for it, and so on. */
async function slot(ctx: Clients): Promise<void> {
  const { spec, pool, headers, tally } = ctx;
  for (let index = ++ctx.next; index <= spec.count; index = ++ctx.next) {
    const t0 = performance.now();
    const body = scheduleBody(spec.supplier, spec.runTag, index);
    const res = await pool.request({ method: 'POST', path: '/v2/data-import/accounts/', headers, body });
    const text = await res.body.text();
    tally.scheduling.record(micros(t0));
    if (res.statusCode !== 201) {
      tally.fail(`schedule ${res.statusCode} ${text.slice(0, 300)}`);
      continue;
    }
    const external = encodeURIComponent(accountExternal(spec.runTag, index));
    await waitForProcessed(ctx, `/v2/data-import/accounts/${spec.supplier}/${external}/`, t0);
  }
}

export async function accountsLoad(spec: AccountsSpec): Promise<AccountsResult> {
  const pool = new Pool(spec.base, { connections: spec.clients, pipelining: 1, headersTimeout: 30_000 });
  const headers = { authorization: `Token ${spec.token}`, 'content-type': 'application/json' };
  const ctx: Clients = { spec, pool, headers, tally: new Tally(), next: 0 };
  const started = performance.now();
  try {
    await Promise.all(Array.from({ length: spec.clients * spec.depth }, () => slot(ctx)));
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const { latency, scheduling, processed, errors, firstError, statusRequests } = ctx.tally;
  const ms = (h: typeof latency, p: number) => (h.count ? +(h.percentile(p) / 1000).toFixed(1) : 0);
  return {
    accounts: spec.count,
    processed,
    errors,
    firstError,
    seconds: +seconds.toFixed(2),
    perSecond: +(processed / seconds).toFixed(1),
    p50Ms: ms(latency, 50),
    p95Ms: ms(latency, 95),
    p99Ms: ms(latency, 99),
    maxMs: ms(latency, 100),
    scheduleP50Ms: ms(scheduling, 50),
    scheduleP99Ms: ms(scheduling, 99),
    statusRequests,
  };
}
