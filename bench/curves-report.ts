// bench/curves.json and the table `npm run bench:curves` prints.
interface TransactionsPoint {
  tableRows: number;
  seedSeconds: number;
  perSecond: number;
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
  nodeMsPerRequest: number;
  pgMsPerRequest: number;
}

export interface CurvesResults {
  date: string;
  window: { clients: number; warmupMs: number; durationMs: number };
  /** The real shape's clients and transactions per request. */
  real: { clients: number; batch: number };
  /** Whether the seeded table was analysed after each seeding (--analyze). */
  analyzed: boolean;
  transactions: TransactionsPoint[];
  realPoints: TransactionsPoint[];
  status: {
    accounts: number;
    seedSeconds: number;
    perSecond: number;
    p50Ms: number;
    p99Ms: number;
    errors: number;
    nodeMsPerRequest: number;
  }[];
  memory: { waiters: number; restMb: number; peakMb: number; perWaiterKb: number; statuses: Record<string, number> }[];
  processes?: { api: number[]; worker: number[] };
  serviceLog: string;
}

const n = (v: number, digits = 0) =>
  v.toLocaleString('en-GB', { maximumFractionDigits: digits, minimumFractionDigits: digits });

export function formatCurves(r: CurvesResults): string {
  const lines = [
    `data-import curves, ${r.date}, ${r.window.clients} clients, ${r.window.warmupMs / 1000} s warm-up + ${r.window.durationMs / 1000} s per point`,
  ];
  const shapes: [string, TransactionsPoint[]][] = [
    [`${r.window.clients} clients × 100`, r.transactions],
    [`real shape, ${r.real.clients} clients × ${r.real.batch}`, r.realPoints],
  ];
  for (const [shape, points] of shapes) {
    lines.push(
      '',
      `transactions, ${shape}${r.analyzed ? '' : ' (table not analysed)'}`,
      'transactions table rows   tx/s     req/s    p99 ms   node ms/req  pg ms/req  errors',
    );
    for (const t of points) {
      lines.push(
        `${n(t.tableRows).padStart(23)}  ${n(t.perSecond).padStart(7)}  ${n(t.requestsPerSecond).padStart(6)}  ${n(t.p99Ms, 1).padStart(7)}  ${n(t.nodeMsPerRequest, 2).padStart(11)}  ${n(t.pgMsPerRequest, 2).padStart(9)}  ${t.errors}`,
      );
    }
  }
  lines.push('', 'status: accounts   req/s   p50 ms   p99 ms  node ms/req  errors');
  for (const s of r.status) {
    lines.push(
      `${n(s.accounts).padStart(16)}  ${n(s.perSecond).padStart(6)}  ${n(s.p50Ms, 2).padStart(7)}  ${n(s.p99Ms, 2).padStart(7)}  ${n(s.nodeMsPerRequest, 2).padStart(11)}  ${s.errors}`,
    );
  }
  lines.push('', 'API memory: waiting clients  rest MB  peak MB  KB per waiter  answers');
  for (const m of r.memory) {
    const answers = Object.entries(m.statuses)
      .map(([status, count]) => `${count}× ${status}`)
      .join(', ');
    lines.push(
      `${n(m.waiters).padStart(27)}  ${n(m.restMb).padStart(7)}  ${n(m.peakMb).padStart(7)}  ${n(m.perWaiterKb).padStart(13)}  ${answers}`,
    );
  }
  return lines.join('\n');
}
