// Command-line options of `npm run bench`. Defaults are the full run; the smoke test passes tiny sizes.
import { parseArgs } from 'node:util';

export const PHASES = [
  'idle',
  'ceiling',
  'transactions',
  'real',
  'accounts',
  'notes',
  'status',
  'list',
  'levers',
  'scaleout',
] as const;
export type Phase = (typeof PHASES)[number];

export interface BenchOptions {
  databaseUrl: string;
  /** Imported accounts the write phases spread their requests over. */
  accounts: number;
  /** Accounts of the supplier the status and list phases read. */
  listAccounts: number;
  clients: number;
  /** Transactions or notes per request, rows per ceiling batch. */
  batch: number;
  /** The real shape (`real` phase): clients, and transactions per request (notes and statements: one). */
  realClients: number;
  realBatch: number;
  /** The `accounts` phase: accounts scheduled, and how many each client keeps awaiting PROCESSED. */
  accountCount: number;
  accountDepth: number;
  warmupSeconds: number;
  seconds: number;
  /** `dist`: built and run as `npm start` does; `tsx`: the TypeScript sources (no build, ~50 MB more RSS). */
  runtime: 'dist' | 'tsx';
  phases: Phase[];
  out: string;
  /** The service's log (its stdout and stderr); a file in the temporary directory by default. */
  log?: string;
  /** Directory for a V8 CPU profile of the service (node --cpu-prof), written when it stops. */
  cpuProfDir?: string;
  /** How long a client of the scale-out kill window retries one request (past stalled-job recovery). */
  retrySeconds: number;
}

export function parseOptions(argv: string[]): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    options: {
      database: {
        type: 'string',
        default: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import_bench',
      },
      accounts: { type: 'string', default: '1000' },
      'list-accounts': { type: 'string', default: '1000000' },
      clients: { type: 'string', default: '32' },
      batch: { type: 'string', default: '100' },
      // The rehearsal's shape: the client's concurrency, 10 transactions per account and request.
      'real-clients': { type: 'string', default: '16' },
      'real-batch': { type: 'string', default: '10' },
      'account-count': { type: 'string', default: '3000' },
      'account-depth': { type: 'string', default: '4' },
      warmup: { type: 'string', default: '3' },
      seconds: { type: 'string', default: '12' },
      runtime: { type: 'string', default: 'dist' },
      only: { type: 'string' },
      out: { type: 'string', default: 'bench/results.json' },
      log: { type: 'string' },
      'cpu-prof': { type: 'string' },
      'retry-seconds': { type: 'string', default: '150' },
    },
  });
  const phases = values.only ? values.only.split(',').map((p) => p.trim()) : [...PHASES];
  const unknown = phases.filter((p) => !(PHASES as readonly string[]).includes(p));
  if (unknown.length) throw new Error(`unknown phase(s) ${unknown.join(', ')}; phases are ${PHASES.join(', ')}`);
  if (values.runtime !== 'dist' && values.runtime !== 'tsx') throw new Error('--runtime is dist or tsx');
  const name = decodeURIComponent(new URL(values.database).pathname.slice(1));
  // The bench empties the write tables of its database at every run: never point it at real data.
  if (!name.startsWith('data_import_bench'))
    throw new Error(`the bench database must be named data_import_bench*, not ${name}`);
  const positive = (flag: string, v: string) => {
    const n = Number(v);
    if (!(n > 0)) throw new Error(`--${flag} must be a positive number`);
    return n;
  };
  return {
    databaseUrl: values.database,
    accounts: positive('accounts', values.accounts),
    listAccounts: positive('list-accounts', values['list-accounts']),
    clients: positive('clients', values.clients),
    batch: positive('batch', values.batch),
    realClients: positive('real-clients', values['real-clients']),
    realBatch: positive('real-batch', values['real-batch']),
    accountCount: positive('account-count', values['account-count']),
    accountDepth: positive('account-depth', values['account-depth']),
    warmupSeconds: Number(values.warmup),
    seconds: positive('seconds', values.seconds),
    runtime: values.runtime,
    phases: phases as Phase[],
    out: values.out,
    log: values.log,
    cpuProfDir: values['cpu-prof'],
    retrySeconds: positive('retry-seconds', values['retry-seconds']),
  };
}
