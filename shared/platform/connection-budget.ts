// The deployment's PostgreSQL connections as one budget: every pool that can open (API processes,
// worker processes sized for every job they may run at once, the migration) times the replicas that
// can run at once (the autoscalers' maxima plus a rolling update's surge), against what the pooler or
// the server accepts. Start-up checks it (shared/platform/process.ts), and the shipped manifests' and
// docs' figures are this computation (test/platform/connection-budget.test.ts).
import type { Config } from './config';

export type BudgetSettings = Pick<
  Config,
  | 'DB_POOL_SIZE'
  | 'API_PROCESSES'
  | 'WORKER_PROCESSES'
  | 'DEPLOYMENT_REPLICAS'
  | 'WORKER_REPLICAS'
  | 'DEPLOYMENT_SURGE'
  | 'LIST_STREAMS_PER_PROCESS'
  | 'STAFF_STREAMS_PER_PROCESS'
  | 'DB_SERVER_CONNECTIONS'
  | 'DB_CLIENT_CONNECTIONS'
>;

export interface ConnectionBudget {
  /** Pool of one API process, and of one worker process. */
  apiPool: number;
  workerPool: number;
  /** API and worker processes that may run at once: replicas × processes, a rolling update's surge included. */
  apiProcesses: number;
  workerProcesses: number;
  /** The migration's one connection (a Job, or the first process's start-up). */
  migration: number;
  /** Client connections every pool may open at once: what the pooler's max_client_conn (or the server) must take. */
  clientConnections: number;
  /** Server connections streamed lists and downloads may hold for their whole run (at most half the server's). */
  streamConnections: number;
}

/**
 * The budget of a deployment: `workerPool` is one worker process's pool (shared/catalog/jobs.ts
 * `workerPoolSize`: WORKER_CONCURRENCY per request queue plus one, at least DB_POOL_SIZE).
 */
export function connectionBudget(c: BudgetSettings, workerPool: number): ConnectionBudget {
  const apiProcesses = (c.DEPLOYMENT_REPLICAS + c.DEPLOYMENT_SURGE) * c.API_PROCESSES;
  const workerProcesses = (c.WORKER_REPLICAS + c.DEPLOYMENT_SURGE) * c.WORKER_PROCESSES;
  const migration = 1;
  return {
    apiPool: c.DB_POOL_SIZE,
    workerPool,
    apiProcesses,
    workerProcesses,
    migration,
    clientConnections: apiProcesses * c.DB_POOL_SIZE + workerProcesses * workerPool + migration,
    streamConnections: apiProcesses * (c.LIST_STREAMS_PER_PROCESS + c.STAFF_STREAMS_PER_PROCESS),
  };
}

/** Why the budget does not fit the limits configured (DB_CLIENT_CONNECTIONS, DB_SERVER_CONNECTIONS), or [] when it does. */
export function budgetProblems(c: BudgetSettings, workerPool: number): string[] {
  const b = connectionBudget(c, workerPool);
  const problems: string[] = [];
  const sum =
    `${b.apiProcesses} API processes × ${b.apiPool} + ${b.workerProcesses} worker processes × ${b.workerPool} + ` +
    `${b.migration} migration = ${b.clientConnections}`;
  if (c.DB_CLIENT_CONNECTIONS !== undefined && b.clientConnections > c.DB_CLIENT_CONNECTIONS) {
    problems.push(
      `the deployment's pools may open ${sum} connections, more than DB_CLIENT_CONNECTIONS (${c.DB_CLIENT_CONNECTIONS}): ` +
        'lower DB_POOL_SIZE, WORKER_CONCURRENCY or the replicas (DEPLOYMENT_REPLICAS, WORKER_REPLICAS, DEPLOYMENT_SURGE), ' +
        'or raise the pooler\'s max_client_conn (docs/deployment.md "Connections")',
    );
  }
  if (c.DB_SERVER_CONNECTIONS !== undefined && 2 * b.streamConnections > c.DB_SERVER_CONNECTIONS) {
    problems.push(
      `${b.apiProcesses} API processes × (LIST_STREAMS_PER_PROCESS + STAFF_STREAMS_PER_PROCESS) = ${b.streamConnections} ` +
        `streams may each hold a server connection: more than half of DB_SERVER_CONNECTIONS (${c.DB_SERVER_CONNECTIONS}). ` +
        'Lower the stream budgets, or give the service more server connections',
    );
  }
  return problems;
}
