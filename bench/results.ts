// The shape of bench/results.json: what one `npm run bench` measured, phase by phase.
import type { AccountsResult } from './account-load';
import type { DownloadResult, WindowResult } from './load';

/** What `pgbench` committed beside a small-request phase (bench/pgbench.ts runs it). */
export interface PgbenchReference {
  clients: number;
  rows: number;
  seconds: number;
  /** Transactions per second (without the initial connection time), or null when pgbench could not run. */
  tps: number | null;
  /** PostgreSQL's CPU per pgbench transaction (its backends only): the floor of one such commit. */
  pgCpuMs?: number;
  error?: string;
}

export interface CpuUse {
  /** Average cores used over the phase (warm-up included): CPU seconds ÷ wall seconds. */
  service: number;
  /** The API and the worker children of the service (a lone `npm run start:api` counts as neither). */
  api?: number;
  worker?: number;
  /** Of `api` and `worker`, the part the kernel spent on their behalf (system calls: sockets, epoll). */
  system?: { api: number; worker: number };
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
  /**
   * When the phase ran (warm-up included), in microseconds of the machine's monotonic clock, the clock
   * of a V8 CPU profile's timestamps too: bench/cost-breakdown.ts reads a phase's samples by it.
   */
  window?: { fromUs: number; toUs: number };
}

export interface BenchResults {
  date: string;
  /** autovacuum: PostgreSQL's setting (`SHOW autovacuum`); off on the shared machines. */
  host: { cpus: number; node: string; loadBefore: number[]; loadAfter: number[]; autovacuum?: string };
  /** The service's children, whose CPU profiles (--cpu-prof) are named after them. */
  pids?: { api: number; worker: number };
  params: {
    accounts: number;
    listAccounts: number;
    clients: number;
    batch: number;
    realClients?: number;
    realBatch?: number;
    accountCount?: number;
    accountDepth?: number;
    warmupSeconds: number;
    seconds: number;
    runtime: string;
  };
  ceiling?: { rowsPerSecond: number; runs: Throughput[] };
  transactions?: Throughput & { ratioToCeiling?: number };
  notes?: Throughput;
  /** The rehearsal's shape: `batch` transactions per request, one note or statement per request. */
  real?: {
    clients: number;
    batch: number;
    transactions: Throughput;
    notes: Throughput;
    statements: Throughput;
    /** pgbench beside the phases: one `batch`-row and one 1-row insert per transaction (bench/pgbench.ts). */
    pgbench?: { batch: PgbenchReference; one: PgbenchReference };
  };
  /** Accounts scheduled through v2 and awaited until PROCESSED (bench/accounts.ts). */
  accounts?: AccountsPhaseResult;
  status?: Throughput;
  list?: DownloadResult & {
    accounts: number;
    megabytes: number;
    rssBeforeMb: number;
    rssPeakMb: number;
    rssGrowthMb: number;
  };
  /** Each process of `npm start` at rest: the supervisor, its API child and its worker child. */
  idle?: {
    supervisorRssMb: number;
    apiRssMb: number;
    workerRssMb: number;
    apiRssServedMb: number;
    apiRssAfterLoadMb?: number;
    workerRssAfterLoadMb?: number;
  };
  scaleOut?: ScaleOutResult;
  levers?: LeverResult[];
  serviceLog: string;
}

export interface LeverResult {
  lever: string;
  perSecond: number;
  p99Ms: number;
  errors: number;
  nodeMsPerRequest: number;
  /** The whole Redis server's CPU per request (shared with anything else on the machine). */
  redisMsPerRequest: number;
}

export interface ScaleOutResult {
  apiProcesses: number;
  workerProcesses: number;
  transactions: Throughput;
  status: Throughput;
  kill: {
    killedPid: number;
    restarted: boolean;
    requests: number;
    acknowledgedItems: number;
    storedRows: number;
    duplicates: number;
    unfinished: number;
    errors: number;
    firstError?: string;
    retries: number;
    longestMs: number;
    secondsAfterKill: number;
  };
}

export interface AccountsPhaseResult extends AccountsResult {
  clients: number;
  depth: number;
  cpu: Omit<CpuUse, 'load'>;
  /** CPU milliseconds per PROCESSED account, by process. */
  cpuMsPerAccount: { api: number; worker: number; postgres: number; redis: number };
  /** Of the API's and the worker's, the kernel's part (system calls). */
  kernelMsPerAccount?: { api: number; worker: number };
  /** When the phase ran, on the monotonic clock (see Throughput's). */
  window?: { fromUs: number; toUs: number };
  /** Per PROCESSED account: committed database transactions and rows inserted (pg_stat_database). */
  database: { transactionsPerAccount: number; rowsInsertedPerAccount: number };
  /** The worker's group commits of the accounts queue: how many, and jobs per transaction on average. */
  groupCommit?: { transactions: number; jobsPerTransaction: number };
  /** Resident memory (MB) of the API and the worker: at the start, the end, the peak, and every ~5 s. */
  rss: { api: RssTrack; worker: RssTrack; samples: { seconds: number; apiMb: number; workerMb: number }[] };
}

export interface RssTrack {
  startMb: number;
  endMb: number;
  peakMb: number;
}
