// Job locks are short (WORKER_LOCK_OPTIONS) so a dead worker's jobs come back in seconds; a live but
// busy worker must still renew them. The heaviest load one process can take — API and workers together,
// as `npm start` runs them, every worker slot busy with a full 1,000-transaction request, and requests
// for one account queued behind each other (the account lock) so jobs are held for longer than a lock
// lasts — keeps the event loop turning often enough that no lock lapses and no job runs twice.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { WORKER_LOCK_OPTIONS } from '../../shared/platform/jobs';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { envelope, importedAccount, payment, postTransactions, storedTransactions } from './transactions.fixture';

const REQUESTS = 32;
const ACCOUNTS = 2;
const ITEMS = 1000;

describe('job locks under load', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ RESULT_WAIT_MS: '120000' }, { workers: true });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  it('every job runs once and keeps its lock while every worker slot imports 1,000 transactions', async () => {
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => importedAccount(app, tenant)));
    const runs = new Map<string, number>();
    const stalled: string[] = [];
    const lostLocks: string[] = [];
    let renewals = 0;
    for (const worker of app.workers!.workers) {
      worker.on('active', (job) => runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1));
      worker.on('stalled', (jobId) => stalled.push(jobId));
      worker.on('lockRenewalFailed', (jobIds) => lostLocks.push(...jobIds));
      worker.on('locksRenewed', ({ count }) => (renewals += count));
    }
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();

    const started = Date.now();
    const answers = await Promise.all(
      Array.from({ length: REQUESTS }, (_, r) =>
        postTransactions(
          app,
          tenant.token,
          envelope(
            tenant,
            accounts[r % ACCOUNTS]!,
            Array.from({ length: ITEMS }, (_, i) => payment(`L-${r}-${i}`)),
          ),
        ),
      ),
    );
    delay.disable();
    const maxDelayMs = Math.round(delay.max / 1e6);
    console.log(
      `${REQUESTS} × ${ITEMS} transactions in ${Date.now() - started} ms: ${renewals} lock renewals, ` +
        `longest event-loop delay ${maxDelayMs} ms`,
    );

    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    const stored = await Promise.all(accounts.map((a) => storedTransactions(app, a.accountId)));
    expect(stored.map((rows) => rows.length)).toEqual(accounts.map(() => (REQUESTS / ACCOUNTS) * ITEMS));
    expect([...runs.values()]).toEqual(answers.map(() => 1));
    expect({ stalled, lostLocks }).toEqual({ stalled: [], lostLocks: [] });
    // Jobs waited on each other for longer than a lock lasts: the locks were in fact renewed.
    expect(renewals).toBeGreaterThan(0);
    // The lock is renewed at least every lockDuration/2: a longer stall would let it lapse.
    expect(maxDelayMs).toBeLessThan(WORKER_LOCK_OPTIONS.lockDuration / 2);
  }, 240_000);
});
