// createAccount, the work of the queued creation job, straight against the real database: what it
// creates, that creating twice (one after the other or at once) makes one account, that a dry run keeps
// nothing, and that data changed since staging refuses the creation.
import { applyFile } from '../../shared/admin/apply.use-case';
import {
  createAccount,
  createLockedAccount,
  insertAccountRows,
  lockProcess,
  markCreationStarted,
  type AccountRows,
  type CreateAccountInput,
  type VerifiedInstruction,
} from '../../shared/account-import/create-account';
import { inTransaction } from '../../shared/platform/db';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { account, applyCatalogue, importStatus, MPAN, stageAccount, type Json } from './account.fixture';

const NOW = new Date('2026-11-26T05:00:00.000Z');

describe('createAccount', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({ DOCUMENT_BUCKET: 'docs-bucket' });
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  /** A tenant of its own (meter points are per supplier) with one staged account. */
  async function staged(change: (a: Json) => void = () => undefined) {
    const tenant = await createTenant(app);
    const number = `EXT-${uniqueSuffix()}`;
    const body = account(tenant.supplier, number);
    change(body);
    const res = await stageAccount(app, tenant, body);
    expect(res.status).toBe(201);
    return { tenant, number };
  }

  const input = (tenant: Tenant, number: string, extra: Partial<CreateAccountInput> = {}): CreateAccountInput => ({
    supplierCode: tenant.supplier,
    externalAccountNumber: number,
    dryRun: false,
    resultId: `req-${uniqueSuffix()}`,
    documentBucket: 'docs-bucket',
    ...extra,
  });

  const create = (i: CreateAccountInput) => inTransaction(app.db, (tx) => createAccount(tx, i, NOW));

  const count = async (table: string, supplier: string, number: string) => {
    const { rows } = await app.db.pool.query<{ n: string }>(
      `SELECT count(*) AS n FROM ${table} x
         JOIN accounts a ON a.id = x.account_id JOIN account_import_processes p ON p.id = a.process_id
        WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
      [supplier, number],
    );
    return Number(rows[0]!.n);
  };
  const accountsOf = async (supplier: string, number: string) =>
    (
      await app.db.pool.query<{ platform_account_number: string }>(
        `SELECT a.platform_account_number FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
        [supplier, number],
      )
    ).rows;
  const processOf = async (supplier: string, number: string) =>
    (
      await app.db.pool.query(
        `SELECT state::text, status::text, latest_error FROM account_import_processes
          WHERE supplier_code = $1 AND external_account_number = $2`,
        [supplier, number],
      )
    ).rows[0];

  it('creates the account with its periods, transactions, notes, statements and meter points', async () => {
    const { tenant, number } = await staged();
    const outcome = await create(input(tenant, number));
    expect(outcome).toEqual({
      outcome: 'created',
      external_account_number: number,
      platform_account_number: expect.stringMatching(/^A-[0-9A-F]{8}$/),
    });
    const [created] = await accountsOf(tenant.supplier, number);
    expect(created!.platform_account_number).toBe(
      (outcome as { platform_account_number: string }).platform_account_number,
    );

    const { rows: periods } = await app.db.pool.query(
      `SELECT starts_on::text, ends_on::text, is_open FROM statement_periods sp
         JOIN accounts a ON a.id = sp.account_id WHERE a.platform_account_number = $1 ORDER BY starts_on`,
      [created!.platform_account_number],
    );
    // Closed from the earliest historical item to the last statement's closing date; open from the day after.
    expect(periods).toEqual([
      { starts_on: '2018-07-05', ends_on: '2019-07-31', is_open: false },
      { starts_on: '2019-08-01', ends_on: null, is_open: true },
    ]);
    expect(await count('transactions', tenant.supplier, number)).toBe(3);
    expect(await count('notes', tenant.supplier, number)).toBe(2);
    expect(await count('historical_statements', tenant.supplier, number)).toBe(2);
    expect(await count('meter_points', tenant.supplier, number)).toBe(2);
    expect(await processOf(tenant.supplier, number)).toEqual({
      state: 'IMPORTED',
      status: 'PROCESSED',
      latest_error: null,
    });

    // The seed's status endpoint, the v2 status and a post-import endpoint all see the account at once.
    const v1 = await request(
      app.baseUrl,
      'GET',
      `/v1/data-import/account-transfer-status/${tenant.supplier}/${number}/`,
      {
        token: tenant.token,
      },
    );
    expect(v1.body).toEqual({ status: 'COMPLETED', platform_account_number: created!.platform_account_number });
    const v2 = await importStatus(app, tenant, tenant.supplier, number);
    expect(v2.body).toMatchObject({
      status: 'PROCESSED',
      platform_identifier: created!.platform_account_number,
      latest_event: {
        event: 'EVENT_ACCOUNT_IMPORT_PROCESS_PROCESSED',
        data: { platform_account_number: created!.platform_account_number },
      },
    });
    const note = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token: tenant.token,
      body: { import_supplier: tenant.supplier, external_account_number: number, notes: [{ body: 'After creation' }] },
    });
    expect(note.status).toBe(201);
    // Staging again is refused with the number.
    const again = await stageAccount(app, tenant, account(tenant.supplier, number));
    expect(again.body).toMatchObject({
      code: 'account_import_process_already_imported',
      platform_account_number: created!.platform_account_number,
    });
  });

  it('creates exactly one account when asked twice, one after the other or at once', async () => {
    const one = await staged();
    const first = await create(input(one.tenant, one.number));
    const second = await create(input(one.tenant, one.number));
    expect(first.outcome).toBe('created');
    expect(second).toMatchObject({ outcome: 'refused' });
    expect((second as { error: { code: string } }).error.code).toBe('account_import_process_already_imported');
    expect(await accountsOf(one.tenant.supplier, one.number)).toHaveLength(1);

    const two = await staged();
    const outcomes = await Promise.all([create(input(two.tenant, two.number)), create(input(two.tenant, two.number))]);
    expect(outcomes.map((o) => o.outcome).sort()).toEqual(['created', 'refused']);
    expect(await accountsOf(two.tenant.supplier, two.number)).toHaveLength(1);
    expect(await count('meter_points', two.tenant.supplier, two.number)).toBe(2);
  });

  it('keeps nothing on a dry run, not even a status or an event on the process, and creates afterwards', async () => {
    const { tenant, number } = await staged();
    const dry = await create(input(tenant, number, { dryRun: true }));
    expect(dry).toMatchObject({ outcome: 'dry_run_succeeded', external_account_number: number });
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
    const { rows } = await app.db.pool.query(
      `SELECT (SELECT count(*) FROM meter_points WHERE supplier_code = $1)::int AS points,
              (SELECT count(*) FROM transactions WHERE request_id LIKE 'req-%' AND account_id NOT IN (SELECT id FROM accounts))::int AS orphans`,
      [tenant.supplier],
    );
    expect(rows[0]).toEqual({ points: 0, orphans: 0 });
    expect(await processOf(tenant.supplier, number)).toEqual({
      state: 'STAGED',
      status: 'PENDING',
      latest_error: null,
    });
    expect((await importStatus(app, tenant, tenant.supplier, number)).body.latest_event.event).toBe(
      'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED',
    );
    expect((await create(input(tenant, number))).outcome).toBe('created');
  });

  it('refuses when a product was removed since staging, keeping nothing and recording the error', async () => {
    const code = `GONE-${uniqueSuffix()}`;
    await applyFile(app.db, { products: [{ code, rates: [] }] });
    const { tenant, number } = await staged(
      (a) => (a.supply_addresses[0].meter_points[1].agreements[0].tariff_code = code),
    );
    await app.db.pool.query('DELETE FROM products WHERE code = $1', [code]);
    const outcome = await create(input(tenant, number));
    expect(outcome.outcome).toBe('refused');
    const error = (outcome as unknown as { error: { status: number; errors: { attr: string; code: string }[] } }).error;
    expect(error.status).toBe(400);
    expect(error.errors).toEqual([
      expect.objectContaining({
        attr: 'supply_addresses.0.meter_points.1.agreements.0.tariff_code',
        code: 'tariff_code_not_found',
      }),
    ]);
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
    expect(await processOf(tenant.supplier, number)).toEqual({
      state: 'FAILED',
      status: 'ERRORED',
      latest_error: expect.objectContaining({ code: 'tariff_code_not_found', domain: 'import_process' }),
    });
    // FAILED reads UNKNOWN on the seed's status endpoint; the v2 status carries the error.
    const v1 = await request(
      app.baseUrl,
      'GET',
      `/v1/data-import/account-transfer-status/${tenant.supplier}/${number}/`,
      {
        token: tenant.token,
      },
    );
    expect(v1.body.status).toBe('UNKNOWN');
    const v2 = await importStatus(app, tenant, tenant.supplier, number);
    expect(v2.body).toMatchObject({
      status: 'ERRORED',
      latest_error: { code: 'tariff_code_not_found' },
      latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED', data: { code: 'tariff_code_not_found' } },
    });
  });

  it('refuses when another account of the supplier took a meter point meanwhile', async () => {
    const { tenant, number } = await staged();
    // A second account of the same supplier with the same electricity meter point, staged before the first was created.
    const rival = `EXT-${uniqueSuffix()}`;
    const body = account(tenant.supplier, rival);
    body.supply_addresses[0].meter_points.pop();
    expect((await stageAccount(app, tenant, body)).status).toBe(201);
    expect((await create(input(tenant, rival))).outcome).toBe('created');
    const outcome = await create(input(tenant, number));
    expect(outcome.outcome).toBe('refused');
    expect((outcome as unknown as { error: { errors: { attr: string; code: string }[] } }).error.errors).toEqual([
      expect.objectContaining({
        attr: 'supply_addresses.0.meter_points.0.identifier',
        code: 'supply_point_already_on_live_account',
      }),
    ]);
    const { rows } = await app.db.pool.query('SELECT identifier FROM meter_points WHERE supplier_code = $1', [
      tenant.supplier,
    ]);
    expect(rows).toEqual([{ identifier: MPAN }]);
  });

  it("in a group's transaction, a meter point another creation claims meanwhile refuses and leaves nothing", async () => {
    const { tenant, number } = await staged();
    const rival = `EXT-${uniqueSuffix()}`;
    const body = account(tenant.supplier, rival);
    body.supply_addresses[0].meter_points.pop();
    expect((await stageAccount(app, tenant, body)).status).toBe(201);
    // The rival's creation holds its meter point, not yet committed: the check before the insert does not see it.
    const other = await app.db.pool.connect();
    try {
      await other.query('BEGIN');
      expect((await createAccount(other, input(tenant, rival), NOW)).outcome).toBe('created');
      const job = input(tenant, number);
      expect(await markCreationStarted(app.db.pool, job, NOW)).toBeDefined();
      const rows: AccountRows[] = [];
      const grouped = inTransaction(app.db, async (tx) => {
        const outcome = await createLockedAccount(tx, await lockProcess(tx, job), job, NOW, rows);
        await insertAccountRows(tx, rows);
        return outcome;
      });
      await until('the insert waiting for the rival meter point', async () => {
        const { rows: waiting } = await app.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO meter_points%'`,
        );
        return waiting[0]!.n > 0 ? true : undefined;
      });
      await other.query('COMMIT');
      const outcome = await grouped;
      expect(outcome.outcome).toBe('refused');
      expect((outcome as unknown as { error: { errors: { code: string }[] } }).error.errors[0]!.code).toBe(
        'supply_point_already_on_live_account',
      );
      expect(rows).toEqual([]);
    } finally {
      other.release();
    }
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
    expect(await processOf(tenant.supplier, number)).toMatchObject({ status: 'ERRORED' });
    const { rows: points } = await app.db.pool.query<{ identifier: string; mine: boolean }>(
      `SELECT mp.identifier, p.external_account_number = $2 AS mine FROM meter_points mp
         JOIN accounts a ON a.id = mp.account_id JOIN account_import_processes p ON p.id = a.process_id
        WHERE mp.supplier_code = $1`,
      [tenant.supplier, number],
    );
    expect(points).toEqual([{ identifier: MPAN, mine: false }]);
  });

  it('refuses when the supplier was paused meanwhile', async () => {
    const { tenant, number } = await staged();
    await app.db.pool.query(`UPDATE import_suppliers SET status = 'Paused' WHERE code = $1`, [tenant.supplier]);
    const outcome = await create(input(tenant, number));
    expect((outcome as { error: { code: string } }).error.code).toBe('import_supplier_migration_not_ongoing');
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
  });

  it('stores payment instructions, a STRIPE one only as the job verified it', async () => {
    const instructions = [
      { vendor: 'BOTTOMLINE_PTX', type: 'DIRECT_DEBIT', reference: 'DD-1' },
      { vendor: 'STRIPE', type: 'CARD', reference: 'pm_abc' },
    ];
    const { tenant, number } = await staged((a) => (a.payment_instructions = instructions));
    await expect(create(input(tenant, number))).rejects.toThrow(/verified/);
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
    // The job's part: mark it started (which answers the staged STRIPE instructions), verify them, pass
    // what the vendor said.
    const job = input(tenant, number);
    const toVerify = (await markCreationStarted(app.db.pool, job, NOW))!.stripeInstructions;
    expect(toVerify).toEqual([{ index: 1, type: 'CARD', reference: 'pm_abc' }]);
    const verified: VerifiedInstruction[] = toVerify.map(({ index }) => ({
      index,
      vendorDetails: { customer: 'cus_1' },
    }));
    const outcome = await create({ ...job, verifiedInstructions: verified });
    expect(outcome.outcome).toBe('created');
    const { rows } = await app.db.pool.query(
      `SELECT vendor, reference, is_active, vendor_details FROM payment_instructions pi
         JOIN accounts a ON a.id = pi.account_id JOIN account_import_processes p ON p.id = a.process_id
        WHERE p.supplier_code = $1 ORDER BY pi.id`,
      [tenant.supplier],
    );
    expect(rows).toEqual([
      { vendor: 'BOTTOMLINE_PTX', reference: 'DD-1', is_active: false, vendor_details: {} },
      { vendor: 'STRIPE', reference: 'pm_abc', is_active: true, vendor_details: { customer: 'cus_1' } },
    ]);
  });

  it('shows IN_PROGRESS while a creation runs, on the seed status endpoint and v2, then COMPLETED', async () => {
    const { tenant, number } = await staged();
    const v1Status = async () =>
      (
        await request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${tenant.supplier}/${number}/`, {
          token: tenant.token,
        })
      ).body.status as string;
    const job = input(tenant, number);
    expect(await markCreationStarted(app.db.pool, job, NOW)).toEqual({ stripeInstructions: [] });
    expect(await v1Status()).toBe('IN_PROGRESS');
    expect((await importStatus(app, tenant, tenant.supplier, number)).body).toMatchObject({
      status: 'IN_PROGRESS',
      latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_STARTED' },
    });
    // Staging again meanwhile is refused (409) and keeps the running status; another job cannot take it.
    expect((await stageAccount(app, tenant, account(tenant.supplier, number))).status).toBe(409);
    expect(await v1Status()).toBe('IN_PROGRESS');
    expect(await markCreationStarted(app.db.pool, input(tenant, number), NOW)).toBeUndefined();
    expect((await create(job)).outcome).toBe('created');
    expect(await v1Status()).toBe('COMPLETED');
    // Once created, nothing more starts.
    expect(await markCreationStarted(app.db.pool, input(tenant, number), NOW)).toBeUndefined();
  });

  it('answers 400 import_process_does_not_exist for a process with nothing staged', async () => {
    const tenant = await createTenant(app);
    const outcome = await create(input(tenant, 'never-staged'));
    expect((outcome as { error: { code: string } }).error.code).toBe('import_process_does_not_exist');
  });
});
