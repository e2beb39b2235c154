// The synchronous account endpoints against the real API and database: validate (v1 and v2), stage
// (create-or-update) and the v2 status, with the database's checks and organisation scoping.
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import {
  account,
  applyCatalogue,
  importStatus,
  MPAN,
  stageAccount,
  TEAM,
  validateAccount,
  validateV2,
} from './account.fixture';

describe('account validation and staging endpoints', () => {
  let app: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  const external = () => `EXT-${uniqueSuffix()}`;

  beforeAll(async () => {
    app = await startTestApp();
    await applyCatalogue(app);
    tenant = await createTenant(app);
    other = await createTenant(app);
  });
  afterAll(() => app.close());

  const events = async (supplier: string, number: string) =>
    (
      await app.db.pool.query<{ event: string }>(
        `SELECT e.event FROM account_import_process_events e
           JOIN account_import_processes p ON p.id = e.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2 ORDER BY e.id`,
        [supplier, number],
      )
    ).rows.map((r) => r.event);

  describe('POST /v1/data-import/validate-account/', () => {
    it('answers 200 with the validated account, unknown names stripped', async () => {
      const body = account(tenant.supplier, external());
      body.favourite_colour = 'blue';
      const res = await validateAccount(app, tenant, body);
      expect(res.status).toBe(200);
      expect(res.body).not.toHaveProperty('favourite_colour');
      expect(res.body.supply_addresses[0].meter_points[0].identifier).toBe(MPAN);
      expect(res.body.transfer_balance).toBe('30.00');
      expect(res.body.supply_addresses[0].meter_points[0].meters[0].transfer_readings[0].reading_value).toBe('1000.00');
      expect(res.body.notes[0].created_at).toBe('2018-10-10T10:20:00Z');
      expect(res.body.customers).toEqual(body.customers);
    });

    it("answers the seed's standard 400 body, naming every fault", async () => {
      const body = account(tenant.supplier, external());
      body.billing_email = 'not-an-address';
      body.customers[0].mobile = '12';
      const res = await validateAccount(app, tenant, body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: expect.any(String),
        code: 'invalid_input',
        errors: [
          { attr: 'billing_email', code: 'billing_email_not_valid', detail: expect.any(String) },
          { attr: 'customers.0.mobile', code: 'invalid_phone_number', detail: expect.any(String) },
        ],
      });
    });

    it('checks the operations team, the tariff codes and meter points on other live accounts', async () => {
      const body = account(tenant.supplier, external());
      body.operations_team_name = `No such team ${uniqueSuffix()}`;
      body.supply_addresses[0].meter_points[1].agreements[0].tariff_code = 'NO-SUCH-PRODUCT';
      const res = await validateAccount(app, tenant, body);
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { attr: string; code: string }) => [e.attr, e.code])).toEqual([
        ['operations_team_name', 'operations_team_name_does_not_exist'],
        ['supply_addresses.0.meter_points.1.agreements.0.tariff_code', 'tariff_code_not_found'],
      ]);
    });

    it('refuses a meter point another live account of the supplier supplies (supply_point_already_on_live_account)', async () => {
      // Another account of the supplier, imported by the platform team, supplies the electricity meter point.
      const holder = external();
      await applyFile(app.db, {
        accounts: [{ import_supplier: tenant.supplier, external_account_number: holder, state: 'imported' }],
      });
      await app.db.pool.query(
        `INSERT INTO meter_points (supplier_code, identifier, supply_type, account_id)
         SELECT $1, $2, 'ELECTRICITY', a.id FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $3`,
        [tenant.supplier, MPAN, holder],
      );
      try {
        const res = await validateAccount(app, tenant, account(tenant.supplier, external()));
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([
          {
            attr: 'supply_addresses.0.meter_points.0.identifier',
            code: 'supply_point_already_on_live_account',
            detail: expect.stringContaining(holder),
          },
        ]);
        // The same meter point on another supplier's account is no conflict.
        expect((await validateAccount(app, other, account(other.supplier, external()))).status).toBe(200);
        // Nor on the holder's own account, which is imported already: that is the answer, not a conflict.
        const own = await validateAccount(app, tenant, account(tenant.supplier, holder));
        expect(own.status).toBe(400);
        expect(own.body.code).toBe('account_import_process_already_imported');
      } finally {
        await app.db.pool.query('DELETE FROM meter_points WHERE supplier_code = $1', [tenant.supplier]);
      }
    });

    it("answers 404 for another organisation's supplier, after the body is valid", async () => {
      const res = await validateAccount(app, tenant, account(other.supplier, external()));
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('import_supplier_not_found');
      const malformed = await validateAccount(app, tenant, { ...account(other.supplier, external()), customers: 'x' });
      expect(malformed.status).toBe(400);
    });
  });

  describe('POST /v1/data-import/account-import-process/create-or-update/', () => {
    it('stages an account (201), updates it (200) and records both events', async () => {
      const number = external();
      const first = await stageAccount(app, tenant, account(tenant.supplier, number));
      expect(first.status).toBe(201);
      expect(first.body).toEqual({ external_account_number: number, import_supplier_code: tenant.supplier });
      const changed = account(tenant.supplier, number);
      changed.billing_name = 'Robert J.';
      const second = await stageAccount(app, tenant, changed);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      expect(await events(tenant.supplier, number)).toEqual([
        'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED',
        'EVENT_ACCOUNT_IMPORT_PROCESS_UPDATED',
      ]);
      const { rows } = await app.db.pool.query(
        `SELECT state::text, status::text, payload FROM account_import_processes
          WHERE supplier_code = $1 AND external_account_number = $2`,
        [tenant.supplier, number],
      );
      expect(rows).toEqual([
        { state: 'STAGED', status: 'PENDING', payload: expect.objectContaining({ billing_name: 'Robert J.' }) },
      ]);
      // The seed's status endpoint reads a staged process as UNKNOWN.
      const status = await fetch(
        `${app.baseUrl}/v1/data-import/account-transfer-status/${tenant.supplier}/${number}/`,
        { headers: { authorization: `Token ${tenant.token}` } },
      );
      expect(await status.json()).toEqual({ status: 'UNKNOWN', platform_account_number: '' });
    });

    it('refuses an account that is already imported, with its platform account number', async () => {
      const number = external();
      const [imported] = (
        await applyFile(app.db, {
          accounts: [{ import_supplier: tenant.supplier, external_account_number: number, state: 'imported' }],
        })
      ).accounts;
      const res = await stageAccount(app, tenant, account(tenant.supplier, number));
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: `The account import process with the account number ${number} has already been imported.`,
        code: 'account_import_process_already_imported',
        errors: [
          { attr: 'non_field_errors', code: 'account_import_process_already_imported', detail: expect.any(String) },
        ],
        external_account_number: number,
        platform_account_number: imported!.platform_account_number,
      });
    });

    it('refuses staging for a Paused or Complete supplier with the existing code', async () => {
      for (const status of ['Paused', 'Complete'] as const) {
        const paused = await createTenant(app, { status });
        const res = await stageAccount(app, paused, account(paused.supplier, external()));
        expect(res.status).toBe(400);
        expect(res.body.code).toBe('import_supplier_migration_not_ongoing');
      }
    });

    it('validates by the same rules before staging anything', async () => {
      const number = external();
      const body = account(tenant.supplier, number);
      body.supply_addresses[0].meter_points[0].identifier = '1200060176721';
      const res = await stageAccount(app, tenant, body);
      expect(res.status).toBe(400);
      expect(res.body.errors[0].code).toBe('invalid_supply_point_identifier');
      expect(await events(tenant.supplier, number)).toEqual([]);
    });
  });

  describe('POST /v2/data-import/accounts/validate/', () => {
    it('answers 200 for a valid payload', async () => {
      const res = await validateV2(app, tenant, { payload: account(tenant.supplier, external()) });
      expect(res.status).toBe(200);
    });

    it("names the account's fields as the contract's example does, and a missing payload at `payload`", async () => {
      const body = account(tenant.supplier, external());
      body.customers[0].landline = 'abcde';
      const res = await validateV2(app, tenant, { payload: body });
      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([
        { attr: 'customers.0.landline', code: 'invalid_phone_number', detail: expect.any(String) },
      ]);
      const missing = await validateV2(app, tenant, {});
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([{ attr: 'payload', code: 'required', detail: expect.any(String) }]);
      // The v1 body (not wrapped) is no v2 body.
      expect((await validateV2(app, tenant, account(tenant.supplier, external()))).status).toBe(400);
    });

    it('checks the database as v1 does', async () => {
      const body = account(tenant.supplier, external());
      body.operations_team_name = 'Nobody';
      const res = await validateV2(app, tenant, { payload: body });
      expect(res.body.errors).toEqual([
        { attr: 'operations_team_name', code: 'operations_team_name_does_not_exist', detail: expect.any(String) },
      ]);
      const foreign = await validateV2(app, tenant, { payload: account(other.supplier, external()) });
      expect(foreign.status).toBe(404);
    });
  });

  describe('GET /v2/data-import/accounts/<supplier>/<external_identifier>/', () => {
    it('reports a staged process with its latest event', async () => {
      const number = external();
      await stageAccount(app, tenant, account(tenant.supplier, number));
      await stageAccount(app, tenant, account(tenant.supplier, number));
      const res = await importStatus(app, tenant, tenant.supplier, number);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        status: 'PENDING',
        platform_identifier: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        modified_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_UPDATED', occurred_at: res.body.modified_at, data: null },
        latest_error: null,
      });
    });

    it('reports an account imported by the platform team as PROCESSED with its number', async () => {
      const number = external();
      const [imported] = (
        await applyFile(app.db, {
          accounts: [{ import_supplier: tenant.supplier, external_account_number: number, state: 'imported' }],
        })
      ).accounts;
      const res = await importStatus(app, tenant, tenant.supplier, number);
      expect(res.body).toMatchObject({ status: 'PROCESSED', platform_identifier: imported!.platform_account_number });
    });

    it("answers 404 for another organisation's process, an unknown one and unstorable text", async () => {
      const number = external();
      await stageAccount(app, tenant, account(tenant.supplier, number));
      expect((await importStatus(app, other, tenant.supplier, number)).status).toBe(404);
      expect((await importStatus(app, tenant, tenant.supplier, 'nope')).status).toBe(404);
      expect((await importStatus(app, tenant, tenant.supplier, 'a\u0000b')).status).toBe(404);
    });
  });

  it('the team the fixture names exists', async () => {
    const { rows } = await app.db.pool.query('SELECT name FROM operations_teams WHERE name = $1', [TEAM]);
    expect(rows).toHaveLength(1);
  });
});
