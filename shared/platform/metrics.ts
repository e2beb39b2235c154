// Prometheus metrics of this process. One registry per process; the API serves it at /metrics. In a
// combined process (`npm start`) it also holds the workers' job metrics.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  registry: Registry;
  httpRequests: Counter<'method' | 'route' | 'status'>;
  httpDuration: Histogram<'method' | 'route' | 'status'>;
  httpRefusals: Counter<'route' | 'code' | 'supplier'>;
  httpRefusedFields: Counter<'route' | 'code' | 'supplier'>;
  jobDuration: Histogram<'queue' | 'outcome'>;
  groupCommits: Histogram<'queue' | 'outcome'>;
  queueJobs: Gauge<'queue' | 'state'>;
  breakerState: Gauge<'vendor' | 'state'>;
  vendorCallsInFlight: Gauge<'vendor'>;
  dbPool: Gauge<'state'>;
  readinessChecks: Counter<'status'>;
}

let shared: Metrics | undefined;

/** The process-wide metrics (created on first use). */
export function processMetrics(): Metrics {
  shared ??= createMetrics();
  return shared;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return { registry, ...httpMetrics(registry), ...jobMetrics(registry), ...stateGauges(registry) };
}

/** What the API answered: counts, latency and refusals by route template. */
function httpMetrics(
  registry: Registry,
): Pick<Metrics, 'httpRequests' | 'httpDuration' | 'httpRefusals' | 'httpRefusedFields'> {
  return {
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by route template, method and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route template, method and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    httpRefusals: new Counter({
      name: 'http_refusals_total',
      help:
        'Answers of 400 and above that carry an error code, by route template, code (a documented code, else other) ' +
        'and import supplier (a configured one, else unknown or none); queued requests included.',
      labelNames: ['route', 'code', 'supplier'],
      registers: [registry],
    }),
    httpRefusedFields: new Counter({
      name: 'http_refused_fields_total',
      help:
        'Field errors (errors[].code) of those answers, by route template, field-level code and import supplier, ' +
        'with the same bounded labels: a transactions 400 counts product_code_does_not_exist here.',
      labelNames: ['route', 'code', 'supplier'],
      registers: [registry],
    }),
  };
}

/** What the workers did: time per job attempt and jobs per group-commit transaction. */
function jobMetrics(registry: Registry): Pick<Metrics, 'jobDuration' | 'groupCommits'> {
  return {
    jobDuration: new Histogram({
      name: 'job_duration_seconds',
      help: 'Time a worker spent on a job attempt, by queue and outcome.',
      labelNames: ['queue', 'outcome'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    groupCommits: new Histogram({
      name: 'group_commit_jobs',
      help:
        'Requests per group-commit transaction, by queue and outcome (committed, or failed: its requests then ' +
        'run alone, each counted again as a group of one): the groups of jobs of a worker, and the transactions ' +
        'the API commits itself (DIRECT_COMMIT) on the /metrics of the API.',
      labelNames: ['queue', 'outcome'],
      buckets: [1, 2, 4, 8, 16, 32, 64],
      registers: [registry],
    }),
  };
}

/** States read at scrape time: queue depths, circuit breakers, vendor calls in flight, database pool. */
function stateGauges(
  registry: Registry,
): Pick<Metrics, 'queueJobs' | 'breakerState' | 'vendorCallsInFlight' | 'dbPool' | 'readinessChecks'> {
  return {
    queueJobs: new Gauge({
      name: 'queue_jobs',
      help: 'Jobs per queue and state (waiting, active, delayed, completed, failed), read at scrape time.',
      labelNames: ['queue', 'state'],
      registers: [registry],
    }),
    breakerState: new Gauge({
      name: 'circuit_breaker_state',
      help: '1 for the current state of each vendor circuit breaker (closed, open, halfOpen).',
      labelNames: ['vendor', 'state'],
      registers: [registry],
    }),
    vendorCallsInFlight: new Gauge({
      name: 'vendor_calls_in_flight',
      help: 'Calls to each payment vendor sent through its circuit breaker and not answered yet, read at scrape time.',
      labelNames: ['vendor'],
      registers: [registry],
    }),
    dbPool: new Gauge({
      name: 'db_pool_connections',
      help: 'PostgreSQL pool connections by state (total, idle, waiting clients).',
      labelNames: ['state'],
      registers: [registry],
    }),
    readinessChecks: new Counter({
      name: 'readiness_checks_total',
      help: 'Answers of /readyz by status (ready, unavailable, stopping): both ready and unavailable in a window is flapping.',
      labelNames: ['status'],
      registers: [registry],
    }),
  };
}
