// The set-up most API tests start from — a test app and one tenant signed in to it — and the transactions
// queue that tests open to see what was (or was not) queued. Named by the convention in test/helpers/README.md.
import { Queue } from 'bullmq';
import { producerConnection } from '../../shared/platform/queues';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { createTenant, startTestApp, type Tenant, type TestApp } from './app';

export interface TenantApp {
  app: TestApp;
  tenant: Tenant;
}

/**
 * Starts a test app (`overrides` and `extra` as for startTestApp) and creates a tenant on it, by default
 * with createTenant; pass another tenant fixture (the notes tests' accounts in every state, say). The
 * caller closes `app`.
 */
export async function startTenantApp(
  overrides: Parameters<typeof startTestApp>[0] = {},
  extra: Parameters<typeof startTestApp>[1] = {},
  createTenantOn: (app: TestApp) => Promise<Tenant> = (app) => createTenant(app),
): Promise<TenantApp> {
  const app = await startTestApp(overrides, extra);
  return { app, tenant: await createTenantOn(app) };
}

/** A producer's view of the app's transactions queue (its own prefix). The caller closes it. */
export function openTransactionsQueue(app: TestApp): Queue {
  return new Queue(transactionImportJob.queue, {
    connection: producerConnection(app.config),
    prefix: app.config.QUEUE_PREFIX,
  });
}

/** Jobs of the queue in any state: a request that never reached the queue leaves this unchanged. */
export async function countJobs(queue: Queue): Promise<number> {
  return Object.values(await queue.getJobCounts()).reduce((a, b) => a + b, 0);
}
