// bench/results.json and the one table printed at the end of a run.
import type { DownloadResult, WindowResult } from './load';

export interface CpuUse {
  /** Average cores used over the phase (warm-up included): CPU seconds ÷ wall seconds. */
  service: number;
  /** PostgreSQL backends serving the bench database. */
  postgres: number;
  /** The whole Redis server (shared with anything else on the machine). */
  redis: number;
  load: number;
}

export interface Throughput extends WindowResult {
  perSecond: number;
  requestsPerSecond: number;
  cpu: CpuUse;
}

export interface BenchResults {
  date: string;
  host: { cpus: number; node: string; loadBefore: number[]; loadAfter: number[] };
  params: { accounts: number; listAccounts: number; clients: number; batch: number; warmupSeconds: number; seconds: number; runtime: string };
  ceiling?: { rowsPerSecond: number; runs: Throughput[] };
  transactions?: Throughput & { ratioToCeiling?: number };
  notes?: Throughput;
  status?: Throughput;
  list?: DownloadResult & { accounts: number; megabytes: number; rssBeforeMb: number; rssPeakMb: number; rssGrowthMb: number };
  idle?: { serviceRssMb: number; apiRssMb: number; apiRssServedMb: number; workerRssMb: number; serviceRssAfterLoadMb?: number };
  serviceLog: string;
}

interface Row {
  figure: string;
  value: string;
  target: string;
  met?: boolean;
}

const n = (v: number, digits = 0) => v.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const cpu = (c: CpuUse) => `node ${c.service.toFixed(2)} · pg ${c.postgres.toFixed(2)} · redis ${c.redis.toFixed(2)} · load ${c.load.toFixed(2)}`;
/** CPU milliseconds per request of the service and of PostgreSQL: steadier than rates on a busy machine. */
const perRequest = (t: Throughput) =>
  `node ${((t.cpu.service / t.requestsPerSecond) * 1000).toFixed(2)} · pg ${((t.cpu.postgres / t.requestsPerSecond) * 1000).toFixed(2)} ms`;

export function tableRows(r: BenchResults): Row[] {
  const rows: Row[] = [];
  const { clients, batch } = r.params;
  if (r.ceiling) {
    const runs = r.ceiling.runs.map((c) => n(c.perSecond)).join(' / ');
    rows.push({ figure: `ceiling: direct unnest INSERT, ${clients} connections × ${batch} rows`, value: `${n(r.ceiling.rowsPerSecond)} rows/s (${runs})`, target: '' });
    rows.push({ figure: '  cores used (first run)', value: cpu(r.ceiling.runs[0]!.cpu), target: '' });
    rows.push({ figure: '  CPU per batch (first run)', value: perRequest(r.ceiling.runs[0]!), target: '' });
  }
  if (r.transactions) {
    const t = r.transactions;
    rows.push({ figure: `transactions: API → queue → worker → PG, ${clients} clients × ${batch}`, value: `${n(t.perSecond)} tx/s (${n(t.requestsPerSecond)} req/s)`, target: '' });
    if (t.ratioToCeiling !== undefined) {
      rows.push({ figure: '  transactions / ceiling', value: `${(t.ratioToCeiling * 100).toFixed(1)} %`, target: '≥ 50 %', met: t.ratioToCeiling >= 0.5 });
    }
    rows.push({ figure: '  latency p50 / p95 / p99', value: `${t.p50Ms} / ${t.p95Ms} / ${t.p99Ms} ms`, target: 'p99 ≤ 250 ms', met: t.p99Ms <= 250 });
    rows.push({ figure: '  errors', value: `${t.errors} of ${t.requests}`, target: '0', met: t.errors === 0 });
    rows.push({ figure: '  cores used', value: cpu(t.cpu), target: '' });
    rows.push({ figure: '  CPU per request', value: perRequest(t), target: '' });
  }
  if (r.notes) {
    const t = r.notes;
    rows.push({ figure: `notes: ${clients} clients × ${batch}`, value: `${n(t.perSecond)} notes/s (${n(t.requestsPerSecond)} req/s)`, target: '≥ 10,000 notes/s', met: t.perSecond >= 10_000 });
    rows.push({ figure: '  latency p50 / p95 / p99', value: `${t.p50Ms} / ${t.p95Ms} / ${t.p99Ms} ms`, target: '' });
    rows.push({ figure: '  errors', value: `${t.errors} of ${t.requests}`, target: '0', met: t.errors === 0 });
    rows.push({ figure: '  cores used', value: cpu(t.cpu), target: '' });
    rows.push({ figure: '  CPU per request', value: perRequest(t), target: '' });
  }
  if (r.status) {
    const t = r.status;
    rows.push({ figure: `status: account-transfer-status of ${n(r.params.listAccounts)}, ${clients} clients`, value: `${n(t.perSecond)} req/s`, target: '≥ 3,000 req/s', met: t.perSecond >= 3000 });
    rows.push({ figure: '  latency p50 / p95 / p99', value: `${t.p50Ms} / ${t.p95Ms} / ${t.p99Ms} ms`, target: 'p99 ≤ 20 ms', met: t.p99Ms <= 20 });
    rows.push({ figure: '  errors', value: `${t.errors} of ${t.requests}`, target: '0', met: t.errors === 0 });
    rows.push({ figure: '  cores used', value: cpu(t.cpu), target: '' });
    rows.push({ figure: '  CPU per request', value: perRequest(t), target: '' });
  }
  if (r.list) {
    const l = r.list;
    rows.push({ figure: `list: all-account-import-processes of ${n(l.accounts)}`, value: `${l.seconds.toFixed(2)} s to the last byte (${n(l.megabytes, 1)} MB, ${n(l.rows)} rows)`, target: '≤ 10 s', met: l.seconds <= 10 && l.rows === l.accounts });
    rows.push({ figure: '  API RSS growth', value: `+${l.rssGrowthMb.toFixed(1)} MB (${l.rssBeforeMb.toFixed(0)} → ${l.rssPeakMb.toFixed(0)} MB)`, target: '≤ 100 MB', met: l.rssGrowthMb <= 100 });
  }
  if (r.idle) {
    const i = r.idle;
    rows.push({ figure: 'idle RSS: API alone (start:api), before its first request', value: `${i.apiRssMb.toFixed(0)} MB`, target: '≤ 150 MB', met: i.apiRssMb <= 150 });
    rows.push({ figure: '  same process at rest after a sign-in and a status request', value: `${i.apiRssServedMb.toFixed(0)} MB`, target: '' });
    rows.push({ figure: 'idle RSS: worker alone (start:worker)', value: `${i.workerRssMb.toFixed(0)} MB`, target: '' });
    rows.push({ figure: 'idle RSS: API + workers in one process (npm start), before its first request', value: `${i.serviceRssMb.toFixed(0)} MB`, target: '' });
    if (i.serviceRssAfterLoadMb !== undefined) {
      rows.push({ figure: '  same process after the load phases', value: `${i.serviceRssAfterLoadMb.toFixed(0)} MB`, target: '' });
    }
  }
  return rows;
}

export function formatTable(r: BenchResults): string {
  const rows = tableRows(r);
  const header: Row = { figure: 'figure', value: 'value', target: 'target' };
  const w = (k: 'figure' | 'value' | 'target') => Math.max(...[header, ...rows].map((row) => row[k].length));
  const line = (row: Row) =>
    `${row.figure.padEnd(w('figure'))}  ${row.value.padEnd(w('value'))}  ${row.target.padEnd(w('target'))}  ${row.met === undefined ? '' : row.met ? 'ok' : 'MISSED'}`.trimEnd();
  const rule = '-'.repeat(w('figure') + w('value') + w('target') + 10);
  return [
    `data-import bench, ${r.date}, ${r.host.cpus} cores, node ${r.host.node}, runtime ${r.params.runtime}, ` +
      `load average ${r.host.loadBefore.join(' ')} before / ${r.host.loadAfter.join(' ')} after, ` +
      `${r.params.warmupSeconds} s warm-up + ${r.params.seconds} s per phase`,
    rule,
    line(header),
    rule,
    ...rows.map(line),
    rule,
  ].join('\n');
}
