// The connection arithmetic docs/deployment.md "Connections" gives: a worker's pool has room for every
// job it may run at once, WORKER_CONCURRENCY on each request queue plus the maintenance queue's one.
import { loadConfig } from '../../shared/platform/config';
import { QUEUED_REQUEST_JOBS, workerPoolSize } from '../../shared/catalog/jobs';

describe("a worker process's database pool", () => {
  it('is 49 connections with the defaults: 16 jobs on each of the three request queues, and one for maintenance', () => {
    expect(new Set(QUEUED_REQUEST_JOBS.map((j) => j.queue))).toEqual(
      new Set(['transactions', 'payment-instructions', 'accounts']),
    );
    expect(workerPoolSize(loadConfig({}, 'worker'))).toBe(49);
  });

  it('grows with WORKER_CONCURRENCY and never goes below DB_POOL_SIZE', () => {
    expect(workerPoolSize(loadConfig({ WORKER_CONCURRENCY: '2' }, 'worker'))).toBe(10);
    expect(workerPoolSize(loadConfig({ WORKER_CONCURRENCY: '8' }, 'worker'))).toBe(25);
    expect(workerPoolSize(loadConfig({ WORKER_CONCURRENCY: '8', DB_POOL_SIZE: '40' }, 'worker'))).toBe(40);
  });
});
