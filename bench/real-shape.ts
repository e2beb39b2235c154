// The real shape of a migration (issue 22): the client groups items per account and accounts carry a
// handful each, so the rehearsal sends 10 transactions per request and one note or statement per
// request, 16 requests at a time. This phase measures that shape beside the 100-item phases, and the
// rows it adds to the bench's table hold it to the real-shape targets.
import type { Client } from 'pg';
import type { WriteTarget } from './payloads';
import { type CpuMeter, say, throughput } from './measure';
import { pgbenchReference } from './pgbench';
import type { Row } from './report';
import type { BenchResults, CpuUse, PgbenchReference, Throughput } from './results';

export const REAL_TARGETS = {
  transactionsPerSecond: 10_000,
  transactionRequestsPerSecond: 1_000,
  oneItemRequestsPerSecond: 1_500,
  /** CPU of the API process per one-item request (notes, statements). */
  apiMsPerOneItemRequest: 0.5,
};

export async function realShapePhase(
  meter: CpuMeter,
  ctx: {
    base: string;
    token: string;
    targets: WriteTarget[];
    clients: number;
    batch: number;
    warmupMs: number;
    durationMs: number;
    runId: string;
    /** For the pgbench reference run beside the phases (on the bench database). */
    pg: Client;
    databaseUrl: string;
  },
): Promise<NonNullable<BenchResults['real']>> {
  const window = { clients: ctx.clients, warmupMs: ctx.warmupMs, durationMs: ctx.durationMs };
  const common = { ...window, base: ctx.base, token: ctx.token, targets: ctx.targets };
  say(`real shape: transactions, ${ctx.clients} clients × ${ctx.batch}`);
  const transactions = await throughput(meter, {
    kind: 'transactions',
    ...common,
    batch: ctx.batch,
    runId: `${ctx.runId}r`,
  });
  const seconds = Math.max(5, Math.round(ctx.durationMs / 1000));
  const reference = (rows: number) =>
    pgbenchReference(ctx.pg, ctx.databaseUrl, { clients: ctx.clients, rows, seconds }, meter);
  const pgbenchBatch = await reference(ctx.batch);
  say(`real shape: notes, ${ctx.clients} clients × 1`);
  const notes = await throughput(meter, { kind: 'notes', ...common, batch: 1, runId: `${ctx.runId}r` });
  say(`real shape: statements, ${ctx.clients} clients × 1`);
  const statements = await throughput(meter, { kind: 'statements', ...common, batch: 1, runId: `${ctx.runId}r` });
  const pgbenchOne = await reference(1);
  return {
    clients: ctx.clients,
    batch: ctx.batch,
    transactions,
    notes,
    statements,
    pgbench: { batch: pgbenchBatch, one: pgbenchOne },
  };
}

const n = (v: number) => v.toLocaleString('en-GB', { maximumFractionDigits: 0 });
/** A process's CPU in ms per request of the phase, from its average cores over the phase. */
export const cpuMsPerRequest = (t: Throughput, cores: number | undefined) =>
  ((cores ?? 0) / t.requestsPerSecond) * 1000;
/** Where a request's CPU goes: the API, the worker, PostgreSQL and Redis, in ms per request. */
const split = (t: Throughput) => {
  const c: CpuUse = t.cpu;
  const f = (cores: number | undefined) => cpuMsPerRequest(t, cores).toFixed(2);
  return `API ${f(c.api)} · worker ${f(c.worker)} · pg ${f(c.postgres)} · redis ${f(c.redis)} ms`;
};

export function realShapeRows(r: BenchResults): Row[] {
  if (!r.real) return [];
  const { transactions: t, notes, statements, clients, batch, pgbench } = r.real;
  const rows: Row[] = [
    {
      figure: `real shape: transactions, ${clients} clients × ${batch} per account`,
      value: `${n(t.perSecond)} tx/s (${n(t.requestsPerSecond)} req/s)`,
      target: `≥ ${n(REAL_TARGETS.transactionsPerSecond)} tx/s, ${n(REAL_TARGETS.transactionRequestsPerSecond)} req/s`,
      met:
        t.perSecond >= REAL_TARGETS.transactionsPerSecond &&
        t.requestsPerSecond >= REAL_TARGETS.transactionRequestsPerSecond,
    },
  ];
  if (r.ceiling)
    rows.push({
      figure: '  transactions / ceiling',
      value: `${((t.perSecond / r.ceiling.rowsPerSecond) * 100).toFixed(1)} %`,
      target: '',
    });
  if (pgbench) rows.push(pgbenchRow(pgbench.batch, t));
  rows.push(...common(t));
  for (const [name, one] of [
    ['notes', notes],
    ['statements', statements],
  ] as const) {
    rows.push({
      figure: `real shape: ${name}, ${clients} clients × 1`,
      value: `${n(one.requestsPerSecond)} req/s`,
      target: `≥ ${n(REAL_TARGETS.oneItemRequestsPerSecond)} req/s`,
      met: one.requestsPerSecond >= REAL_TARGETS.oneItemRequestsPerSecond,
    });
    if (pgbench) rows.push(pgbenchRow(pgbench.one, one));
    rows.push(...common(one));
    const api = cpuMsPerRequest(one, one.cpu.api);
    rows.push({
      figure: '  API CPU per request',
      value: `${api.toFixed(3)} ms`,
      target: `≤ ${REAL_TARGETS.apiMsPerOneItemRequest} ms`,
      met: api <= REAL_TARGETS.apiMsPerOneItemRequest,
    });
  }
  return rows;
}

/** The pgbench TPS measured beside the phase, and the phase's requests per second as a share of it. */
function pgbenchRow(ref: PgbenchReference, t: Throughput): Row {
  const figure = `  pgbench, ${ref.clients} clients × one ${ref.rows}-row insert`;
  if (ref.tps === null) return { figure, value: `not measured (${ref.error ?? 'no tps line'})`, target: '' };
  const share = (t.requestsPerSecond / ref.tps) * 100;
  const target = ref.rows === 1 ? 45 : 30;
  const floor = ref.pgCpuMs === undefined ? '' : `; pg ${ref.pgCpuMs.toFixed(2)} ms of CPU per transaction`;
  return {
    figure,
    value: `${n(ref.tps)} TPS; the phase is ${share.toFixed(1)} % of it${floor}`,
    target: `≥ ${target} %`,
    met: share >= target,
  };
}

function common(t: Throughput): Row[] {
  return [
    { figure: '  latency p50 / p95 / p99', value: `${t.p50Ms} / ${t.p95Ms} / ${t.p99Ms} ms`, target: '' },
    { figure: '  errors', value: `${t.errors} of ${t.requests}`, target: '0', met: t.errors === 0 },
    { figure: '  CPU per request', value: split(t), target: '' },
  ];
}
