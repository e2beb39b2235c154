// The creation job's locks and what a created account can do at once, against the real database and
// service: a group of creations does not wait for a process row another transaction holds (it fails at
// once and its jobs run alone), a platform account number is never given twice, and every post-import
// endpoint works on an account the moment its creation answered.
import type { PoolClient } from 'pg';
import { accountProcessJob, type AccountCreation } from '../../shared/account-import/account-creation.job';
import { markCreationStarted } from '../../shared/account-import/create-account';
import { inTransaction } from '../../shared/platform/db';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { account, applyCatalogue, stageAccount } from './account.fixture';

describe('account creation: locks, numbers, and the account at once', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, { workers: true });
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  async function staged() {
    const tenant = await createTenant(app);
    const number = `EXT-${uniqueSuffix()}`;
    expect((await stageAccount(app, tenant, account(tenant.supplier, number))).status).toBe(201);
    return { tenant, number };
  }
  /** A job that has taken its process (the lifecycle's start), as the job's prepare step leaves it. */
  const prepared = async (s: { tenant: Tenant; number: string }) => {
    const resultId = `req-${uniqueSuffix()}`;
    const names = { supplierCode: s.tenant.supplier, externalAccountNumber: s.number, resultId };
    expect(await markCreationStarted(app.db.pool, names, new Date())).toBeDefined();
    return job(s, resultId);
  };
  const job = (s: { tenant: Tenant; number: string }, resultId: string) => ({
    request: {
      resultId,
      organisationId: 0,
      accountId: null,
      payload: {
        import_supplier_code: s.tenant.supplier,
        external_account_number: s.number,
        dry_run: false,
      } satisfies AccountCreation,
      job: {} as never,
    },
    prepared: { documentBucket: 'docs', verifiedInstructions: [], held: true },
  });
  /** The job kind's commit in a transaction of its own (a short statement timeout: a wait fails the test, not the run). */
  const commit = (items: ReturnType<typeof job>[], wait: boolean) =>
    inTransaction(app.db, (tx) => accountProcessJob.commit(tx, items, { wait }), 10_000);

  it('a group of several does not wait for a process another transaction holds; alone, each creates', async () => {
    const held = await staged();
    const free = await staged();
    const heldJob = await prepared(held);
    const freeJob = await prepared(free);
    const holder: PoolClient = await app.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        'SELECT id FROM account_import_processes WHERE supplier_code = $1 AND external_account_number = $2 FOR UPDATE',
        [held.tenant.supplier, held.number],
      );

      await expect(commit([heldJob, freeJob], false)).rejects.toMatchObject({
        code: '55P03',
        message: expect.stringMatching(/could not obtain lock/),
      });
      // The other account of that group, alone, is not held up by the held one.
      const [alone] = await commit([freeJob], true);
      expect(alone).toMatchObject({ status: 201 });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    const [after] = await commit([heldJob], true);
    expect(after).toMatchObject({ status: 201 });
  });

  it('never gives a platform account number twice: every account has its own, and the index refuses a copy', async () => {
    const { rows } = await app.db.pool.query<{ all: number; distinct: number }>(
      'SELECT count(*)::int AS all, count(DISTINCT platform_account_number)::int AS distinct FROM accounts',
    );
    expect(rows[0]!.all).toBeGreaterThan(0);
    expect(rows[0]!.distinct).toBe(rows[0]!.all);
    const one = await staged();
    await expect(
      app.db.pool.query(
        `INSERT INTO accounts (process_id, platform_account_number, created_at)
         SELECT p.id, (SELECT platform_account_number FROM accounts LIMIT 1), now()
           FROM account_import_processes p WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
        [one.tenant.supplier, one.number],
      ),
    ).rejects.toMatchObject({ code: '23505' });
  });

  it('after the process call answers, every post-import endpoint works on the account at once', async () => {
    const { tenant, number } = await staged();
    const post = (path: string, body: object) =>
      request(app.baseUrl, 'POST', `/v1/data-import/${path}/`, { token: tenant.token, body });
    const get = (path: string) => request(app.baseUrl, 'GET', `/v1/data-import/${path}/`, { token: tenant.token });
    const names = { import_supplier: tenant.supplier, external_account_number: number };

    const created = await post('account-import-process/process', {
      import_supplier_code: tenant.supplier,
      external_account_number: number,
    });
    expect(created.status).toBe(201);

    const transaction = {
      transaction_id: `T-${uniqueSuffix()}`,
      transaction_date: '2019-08-10',
      amount: 71,
      type: 'PAYMENT',
      reason: 'GENERAL_CREDIT',
      payment_type: 'DEBIT_CARD',
    };
    const answers = {
      notes: await post('notes/create', { ...names, notes: [{ body: 'At once.' }] }),
      transactions: await post('transactions/create', { ...names, transactions: [transaction] }),
      statements: await post('historical-statements/create', {
        ...names,
        statements: [
          { statement_id: 'S-AFTER', bill_period_from_date: '2019-08-01', bill_period_to_date: '2019-08-31' },
        ],
      }),
    };
    expect(Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, r.status]))).toEqual({
      notes: 201,
      transactions: 201,
      statements: 201,
    });
    // A payment instruction gets past the account look-up (its refusal is about the instruction, not 404).
    const instruction = await post('payment-instruction/create', { ...names, vendor: 'STRIPE', type: 'CARD' });
    expect(instruction.status).toBe(400);
    expect(JSON.stringify(instruction.body)).not.toContain('account_not_found');
    const status = await get(`account-transfer-status/${tenant.supplier}/${number}`);
    expect(status.body).toMatchObject({ status: 'COMPLETED' });
    for (const list of ['all', 'imported']) {
      const listed = await get(`${list}-account-import-processes/${tenant.supplier}`);
      expect(JSON.stringify(listed.body)).toContain(number);
    }
    const pending = await get(`pending-account-import-processes/${tenant.supplier}`);
    expect(JSON.stringify(pending.body)).not.toContain(number);
  });
});
