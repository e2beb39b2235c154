// Job locks are short (WORKER_LOCK_OPTIONS) so a dead worker's jobs come back in seconds; a live but
// busy worker must still renew them. The heaviest load one process can take — API and workers together,
// as `npm start` runs them, every worker slot busy with a full 1,000-transaction request, and requests
// for one account queued behind each other (the account lock) — keeps the event loop turning often
// enough that no lock lapses and no job runs twice. So that jobs surely outlive a lock however fast the
// machine is, the test itself holds the two accounts' rows until the workers have renewed their locks.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import { WORKER_LOCK_OPTIONS } from '../../shared/platform/queues';
import type { Tenant, TestApp } from '../helpers/app';
import { envelope, importedAccount, payment, postTransactions, storedTransactions } from './transactions.fixture';

const REQUESTS = 32;
const ACCOUNTS = 2;
const ITEMS = 1000;

describe('job locks under load', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    // Jobs are held on purpose while requests keep arriving: no answer may be shed for want of a connection.
    ({ app, tenant } = await startTenantApp(
      { RESULT_WAIT_MS: '120000', DB_ACQUIRE_TIMEOUT_MS: '120000' },
      { workers: true },
    ));
  });
  afterAll(() => app.close());

  it('every job runs once and keeps its lock while every worker slot imports 1,000 transactions', async () => {
    const accounts = await Promise.all(Array.from({ length: ACCOUNTS }, () => importedAccount(app, tenant)));
    const runs = new Map<string, number>();
    const stalled: string[] = [];
    const lostLocks: string[] = [];
    let renewals = 0;
    let firstActive: number | undefined;
    for (const worker of app.workers!.workers) {
      worker.on('active', (job) => {
        firstActive ??= Date.now();
        runs.set(job.id!, (runs.get(job.id!) ?? 0) + 1);
      });
      worker.on('stalled', (jobId) => stalled.push(jobId));
      worker.on('lockRenewalFailed', (jobIds) => lostLocks.push(...jobIds));
      worker.on('locksRenewed', ({ count }) => (renewals += count));
    }
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();

    // Every job of these accounts waits on this transaction's row locks (lockAccount) until released.
    const holder = await app.db.pool.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM accounts WHERE id = ANY($1) FOR UPDATE', [accounts.map((a) => a.accountId)]);

    const started = Date.now();
    const answering = Promise.all(
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
    try {
      // Held past a lock's life: the blocked jobs' locks must have been renewed to survive it.
      await until(
        'jobs held past the life of a lock, their locks renewed',
        () =>
          renewals > 0 && firstActive !== undefined && Date.now() - firstActive > WORKER_LOCK_OPTIONS.lockDuration
            ? true
            : undefined,
        // Room for 32 bodies of 1,000 items to be read and handed over on a busy machine.
        120_000,
      );
    } finally {
      await holder.query('COMMIT');
      holder.release();
    }
    const answers = await answering;
    delay.disable();
    const maxDelayMs = Math.round(delay.max / 1e6);
    console.log(
      `${REQUESTS} × ${ITEMS} transactions in ${Date.now() - started} ms: ${renewals} lock renewals, ` +
        `longest event-loop delay ${maxDelayMs} ms`,
    );

    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    const stored = await Promise.all(accounts.map((a) => storedTransactions(app, a.accountId)));
    expect(stored.map((rows) => rows.length)).toEqual(accounts.map(() => (REQUESTS / ACCOUNTS) * ITEMS));
    // One job per burst of requests (shared/requests/burst.ts): every job, however many it carried, ran once.
    expect(runs.size).toBeGreaterThan(0);
    expect([...runs.values()]).toEqual([...runs.keys()].map(() => 1));
    expect({ stalled, lostLocks }).toEqual({ stalled: [], lostLocks: [] });
    // Jobs waited longer than a lock lasts (until above), and their locks were renewed meanwhile.
    expect(Date.now() - started).toBeGreaterThan(WORKER_LOCK_OPTIONS.lockDuration);
    // A lock is renewed at least every lockRenewTime: a stall longer than the rest of its life would let it lapse.
    expect(maxDelayMs).toBeLessThan(WORKER_LOCK_OPTIONS.lockDuration - WORKER_LOCK_OPTIONS.lockRenewTime);
  }, 240_000);
});
