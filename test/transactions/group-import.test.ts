// The worker's group commit on the real database: jobs a worker process runs at the same time are
// imported in one transaction, two jobs for one account are not, and a job the database refuses fails
// without taking its group down. The processor is called directly, several jobs in one turn of the
// event loop, as BullMQ's concurrency would call it.
import { randomUUID } from 'node:crypto';
import type { Job } from 'bullmq';
import type { QueuedRequestData } from '../../shared/requests/job-declaration';
import { processMetrics } from '../../shared/platform/metrics';
import { createOrFindPending, findResult } from '../../shared/requests/request-result.repository';
import { toTransactionImportJson } from '../../shared/transactions/transaction.job-payload';
import { parseTransactionImport } from '../../shared/transactions/transaction.validation';
import { QueuedJobRunner } from '../../shared/requests/queued-job';
import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  storedTransactions,
  type TestAccount,
} from './transactions.fixture';
import { transactionImportJob } from '../../shared/transactions/transaction.job';

/** `promise`, or a rejection once `ms` have passed without it settling. */
function settledWithin<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

interface Compact {
  status: number;
  items: { added: boolean; id?: number }[];
}

describe('group commit of transaction imports (worker)', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ app, tenant } = await startTenantApp()));
  afterAll(() => app.close());

  /** A pending request and the job the API would queue for it; `edit` changes the job's payload JSON. */
  async function queuedJob(
    account: TestAccount,
    transactions: unknown[],
    edit?: (payload: { request: { transactions: { amount: unknown }[] } }) => void,
  ) {
    const resultId = randomUUID();
    const organisationId = organisationOf(tenant);
    await createOrFindPending(app.db.pool, {
      id: resultId,
      organisationId,
      accountId: account.accountId,
      runId: null,
      endpoint: transactionImportJob.endpoint,
      idempotencyKey: null,
      bodyHash: 'group-test',
    });
    const checked = parseTransactionImport({ options: {}, request: envelope(tenant, account, transactions) });
    const payload = JSON.parse(JSON.stringify(toTransactionImportJson(checked)));
    edit?.(payload);
    const data: QueuedRequestData = {
      resultId,
      organisationId,
      accountId: account.accountId,
      version: transactionImportJob.payload.version,
      payload,
    };
    return { id: resultId, data, attemptsMade: 0, opts: { attempts: 1 } } as unknown as Job<QueuedRequestData>;
  }

  // One runner for the file, as a worker process has one: jobs run at the same time share its group committer.
  let runner: QueuedJobRunner;
  const run = (job: Job<QueuedRequestData>) => {
    runner ??= new QueuedJobRunner(app);
    return runner.run(transactionImportJob, job) as Promise<Compact | null>;
  };

  /** The database transactions (xmin) that wrote these accounts' rows. */
  async function writers(accounts: TestAccount[]): Promise<string[]> {
    const { rows } = await app.db.pool.query<{ xmin: string }>(
      'SELECT DISTINCT xmin::text AS xmin FROM transactions WHERE account_id = ANY($1::int[])',
      [accounts.map((a) => a.accountId)],
    );
    return rows.map((r) => r.xmin);
  }

  it('imports the jobs that run at the same time, each on its own account, in one transaction', async () => {
    const accounts = await Promise.all([1, 2, 3, 4].map(() => importedAccount(app, tenant)));
    const jobs = await Promise.all(accounts.map((a, i) => queuedJob(a, [payment(`g${i}-1`), payment(`g${i}-2`)])));

    const events = await Promise.all(jobs.map(run));

    for (const [i, event] of events.entries()) {
      expect(event).toMatchObject({ status: 201, items: [{ added: true }, { added: true }] });
      const rows = await storedTransactions(app, accounts[i]!.accountId);
      expect(rows.map((r) => r.transactionId)).toEqual([`g${i}-1`, `g${i}-2`]);
      expect(event!.items.map((item) => item.id)).toEqual(rows.map((r) => Number(r.id)));
      expect((await findResult(app.db.pool, jobs[i]!.data.resultId))?.httpStatus).toBe(201);
    }
    expect(await writers(accounts)).toHaveLength(1);
    // The worker's /metrics shows it: one more committed group of three or four jobs.
    const { values } = await processMetrics().groupCommits.get();
    const committedUpTo = (le: number) =>
      values.find(
        (v) =>
          v.metricName === 'group_commit_jobs_bucket' &&
          v.labels.outcome === 'committed' &&
          (v.labels as Record<string, unknown>).le === le,
      )?.value ?? 0;
    expect(committedUpTo(4) - committedUpTo(2)).toBeGreaterThanOrEqual(1);
  });

  it('imports two jobs for one account one after the other: the second finds what the first added', async () => {
    const account = await importedAccount(app, tenant);
    const first = await queuedJob(account, [payment('s1'), payment('s2')]);
    const second = await queuedJob(account, [payment('s2'), payment('s3')]);

    const [a, b] = await Promise.all([run(first), run(second)]);

    expect(a?.items.map((item) => item.added)).toEqual([true, true]);
    expect(b?.items.map((item) => item.added)).toEqual([false, true]);
    expect((await storedTransactions(app, account.accountId)).map((r) => r.transactionId)).toEqual(['s1', 's2', 's3']);
    expect(await writers([account])).toHaveLength(2);
  });

  it('runs the jobs of a group alone when the group fails, so only the job the database refuses fails', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => importedAccount(app, tenant)));
    const jobs = await Promise.all(
      accounts.map((a, i) =>
        queuedJob(a, [payment(`f${i}`)], (payload) => {
          // Past NUMERIC(20,10): the API never lets such an amount through, but the INSERT refuses it.
          if (i === 1) payload.request.transactions[0]!.amount = '12345678901234.00';
        }),
      ),
    );

    const settled = await Promise.allSettled(jobs.map(run));

    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((await storedTransactions(app, accounts[0]!.accountId)).map((r) => r.transactionId)).toEqual(['f0']);
    expect(await storedTransactions(app, accounts[1]!.accountId)).toEqual([]);
    expect((await storedTransactions(app, accounts[2]!.accountId)).map((r) => r.transactionId)).toEqual(['f2']);
    // Its attempts spent, the refused job's request answers "retry as it is" instead of staying pending.
    expect(await findResult(app.db.pool, jobs[1]!.data.resultId)).toMatchObject({
      httpStatus: 500,
      body: { code: 'temporary_failure' },
    });
  });

  it('does not let an account that another transaction holds stall the other jobs of its group', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => importedAccount(app, tenant)));
    const jobs = await Promise.all(accounts.map((a, i) => queuedJob(a, [payment(`b${i}`)])));
    const holder = await app.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [accounts[1]!.accountId]);

      const [first, held, third] = jobs.map(run);
      // The others finish while the account stays locked; the held one waits for it, alone.
      await expect(settledWithin(Promise.all([first, third]), 10_000)).resolves.toMatchObject([
        { status: 201 },
        { status: 201 },
      ]);
      expect((await findResult(app.db.pool, jobs[1]!.data.resultId))?.httpStatus).toBeNull();

      await holder.query('ROLLBACK');
      await expect(held).resolves.toMatchObject({ status: 201 });
      expect((await storedTransactions(app, accounts[1]!.accountId)).map((r) => r.transactionId)).toEqual(['b1']);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
    }
  });

  it('does nothing for a job whose request an earlier run finished', async () => {
    const account = await importedAccount(app, tenant);
    const job = await queuedJob(account, [payment('once')]);

    expect(await run(job)).toMatchObject({ status: 201 });
    expect(await run(job)).toBeNull();
    expect((await storedTransactions(app, account.accountId)).map((r) => r.transactionId)).toEqual(['once']);
  });
});
