import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { createOrFindPending, findResult } from '../../shared/requests/request-result.repository';
import { openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import type { Tenant, TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
} from './transactions.fixture';
import { transactionImportJob } from '../../shared/transactions/transaction.job';

describe('transaction import jobs in the worker', () => {
  let app: TestApp;
  let tenant: Tenant;
  // `holder` keeps the account locked; `killer` watches from outside that transaction, because
  // pg_stat_activity is snapshotted once per transaction.
  let holder: Client;
  let killer: Client;

  beforeAll(async () => {
    // Retries one millisecond apart: the attempts are what is tested, not BullMQ's back-off.
    ({ app, tenant } = await startTenantApp({}, { workers: true, jobBackoff: { type: 'fixed', delay: 1 } }));
    holder = new Client({ connectionString: app.config.DATABASE_URL });
    killer = new Client({ connectionString: app.config.DATABASE_URL });
    await Promise.all([holder.connect(), killer.connect()]);
  });
  afterAll(async () => {
    await Promise.all([holder.end(), killer.end()]);
    await app.close();
  });

  /**
   * Kills, as often as it finds one, the server connection of an import waiting for the account lock
   * that `holder` keeps: each job attempt dies with a lost connection, a genuine transient fault. Only
   * backends blocked by `holder` are touched: other test runs may share this database.
   */
  async function killWaitingImports(until: Promise<unknown>): Promise<number> {
    let settled = false;
    void until.finally(() => (settled = true));
    const { rows: own } = await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    // A terminated backend can still be listed as waiting for a moment: count each one once.
    const killed = new Set<number>();
    const deadline = Date.now() + 30_000;
    while (!settled && Date.now() < deadline) {
      const { rows } = await killer.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE $1::int = ANY(pg_blocking_pids(pid))',
        [own[0]!.pid],
      );
      for (const { pid } of rows) {
        await killer.query('SELECT pg_terminate_backend($1)', [pid]);
        killed.add(pid);
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return killed.size;
  }

  it('retries the job and, when every attempt fails, answers the stored 500 temporary_failure that says to retry as it is', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('doomed')]);
    await holder.query('BEGIN');
    await holder.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [account.accountId]);

    const answer = postTransactions(app, tenant.token, body);
    const killed = await killWaitingImports(answer);
    await holder.query('ROLLBACK');
    const res = await answer;

    expect(killed).toBe(transactionImportJob.retry.attempts);
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ detail: expect.stringMatching(/retry/i) as unknown, code: 'temporary_failure' });
    const [stored] = await storedResults(app, organisationOf(tenant));
    expect(stored).toMatchObject({ httpStatus: 500, body: res.body });
    expect(await storedTransactions(app, account.accountId)).toEqual([]);

    const retried = await postTransactions(app, tenant.token, body);
    expect(retried.status).toBe(201);
    expect((await storedTransactions(app, account.accountId)).map((r) => r.transactionId)).toEqual(['doomed']);
  });

  it('judges a job queued under another payload version by the request rules again and stores their 400 instead of importing it', async () => {
    // A job queued by an older release (no version, the body as sent, the old envelope) is not trusted to be valid.
    const account = await importedAccount(app, tenant);
    const queue = openTransactionsQueue(app);
    const queueAsOlderRelease = async (request: unknown) => {
      const id = randomUUID();
      const organisationId = organisationOf(tenant);
      await createOrFindPending(app.db.pool, {
        id,
        organisationId,
        accountId: account.accountId,
        runId: null,
        endpoint: transactionImportJob.endpoint,
        idempotencyKey: null,
        bodyHash: 'older-release',
      });
      const payload = { options: { check_previously_added: true, force_add_to_current_statement: true }, request };
      await queue.add(
        transactionImportJob.name,
        // The envelope as older releases wrote it: the result row's id was `requestId`.
        { requestId: id, organisationId, accountId: account.accountId, payload },
        { jobId: id },
      );
      return until('the stored answer', async () => {
        const row = await findResult(app.db.pool, id);
        return row?.httpStatus != null ? { status: row.httpStatus, body: row.body } : undefined;
      });
    };
    try {
      const badItem = await queueAsOlderRelease(
        envelope(tenant, account, [payment('1'), payment('2', { amount: -3 })]),
      );
      const badEnvelope = await queueAsOlderRelease({ ...envelope(tenant, account, [payment('3')]), dry_run: 'no' });

      expect(badItem).toMatchObject({
        status: 400,
        body: {
          status: 'TRANSACTION_IMPORT_ERROR',
          errors: [{ attr: 'transactions.1.amount', code: 'amount_must_be_positive' }],
        },
      });
      expect(badEnvelope).toMatchObject({
        status: 400,
        body: { code: 'invalid_input', errors: [{ attr: 'dry_run' }] },
      });
      expect(await storedTransactions(app, account.accountId)).toEqual([]);
    } finally {
      await queue.close();
    }
  });
});
