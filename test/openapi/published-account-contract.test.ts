// The account-import endpoints' requests and answers against the published contract's own schemas
// (EDF GB variant), adapted only by the deliberate differences of published-account-contract.ts: what a
// migration sends as the fixture account is a valid contract request, and what the running service
// answers fits the contract's response schemas.
import { account, applyCatalogue, type Json } from '../account-import/account.fixture';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { ACCOUNT_DIFFERENCES, ACCOUNT_ENDPOINTS, loadAccountContract } from './published-account-contract';

const contract = loadAccountContract();
const inAnHour = () => new Date(Date.now() + 3600_000).toISOString();

describe('the account-import endpoints and the published contract', () => {
  let app: TestApp;
  let tenant: Tenant;
  beforeAll(async () => {
    app = await startTestApp({}, { workers: true });
    await applyCatalogue(app);
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  const send = (endpoint: keyof typeof ACCOUNT_ENDPOINTS, body?: unknown, external = '') => {
    const { method, path } = ACCOUNT_ENDPOINTS[endpoint];
    const url = path.replace('{import_supplier_code}', tenant.supplier).replace('{external_identifier}', external);
    return request(app.baseUrl, method.toUpperCase(), url, { token: tenant.token, body });
  };

  it('lists each deliberate difference with its reason', () => {
    for (const d of ACCOUNT_DIFFERENCES) expect([d.what.length > 0, d.why.length > 0]).toEqual([true, true]);
  });

  it("takes requests that are the contract's: the account, {payload}, {payload, task_params} and the process call", () => {
    const a = account('SUPPLIER', 'EXT-1');
    expect(contract.requestErrors('validateAccount', a)).toEqual([]);
    expect(contract.requestErrors('createOrUpdate', a)).toEqual([]);
    expect(contract.requestErrors('validateV2', { payload: a })).toEqual([]);
    const task = { is_dry_run: false, schedule_window_start: inAnHour() };
    expect(contract.requestErrors('schedule', { payload: a, task_params: task })).toEqual([]);
    const call = { import_supplier_code: 'SUPPLIER', external_account_number: 'EXT-1', dry_run: true };
    expect(contract.requestErrors('process', call)).toEqual([]);
  });

  it("answers validate, stage, process and the v2 status in the contract's response schemas", async () => {
    const external = `EXT-${uniqueSuffix()}`;
    const a: Json = account(tenant.supplier, external);
    const answers: [keyof typeof ACCOUNT_ENDPOINTS, { status: number; body: unknown }][] = [];
    const keep = async (endpoint: keyof typeof ACCOUNT_ENDPOINTS, body?: unknown, id = '') => {
      const res = await send(endpoint, body, id);
      answers.push([endpoint, res]);
      return res;
    };
    expect((await keep('validateAccount', a)).status).toBe(200);
    expect((await keep('createOrUpdate', a)).status).toBe(201);
    expect((await keep('createOrUpdate', a)).status).toBe(200);
    const call = { import_supplier_code: tenant.supplier, external_account_number: external };
    expect((await keep('process', { ...call, dry_run: true })).status).toBe(201);
    expect((await keep('process', call)).status).toBe(201);
    expect((await keep('status', undefined, external)).status).toBe(200);
    expect((await keep('status', undefined, 'NO-SUCH-ACCOUNT')).status).toBe(404);
    const bad = { payload: { ...a, customers: [{ ...a.customers[0], landline: 'not a number' }] } };
    expect((await keep('validateV2', bad)).status).toBe(400);

    for (const [endpoint, res] of answers) {
      expect([endpoint, res.status, contract.responseErrors(endpoint, res.status, res.body)]).toEqual([
        endpoint,
        res.status,
        [],
      ]);
    }
  });

  it('answers an imported account as the contract names it, and a scheduled one is followed to PROCESSED', async () => {
    // A tenant of its own: the fixture's meter points are taken in the first one.
    tenant = await createTenant(app);
    const external = `EXT-${uniqueSuffix()}`;
    const a = account(tenant.supplier, external);
    const scheduled = await send('schedule', { payload: a, task_params: { is_dry_run: false } });
    expect(scheduled.status).toBe(201);
    const status = await until('PROCESSED', async () => {
      const res = await send('status', undefined, external);
      return res.body.status === 'PROCESSED' ? res : undefined;
    });
    expect(contract.responseErrors('status', 200, status.body)).toEqual([]);

    const again = await send('process', { import_supplier_code: tenant.supplier, external_account_number: external });
    expect(again.status).toBe(400);
    // The contract's AccountAlreadyImportedResponse fields, in the standard body (a deliberate difference).
    expect(again.body).toMatchObject({
      external_account_number: external,
      platform_account_number: status.body.platform_identifier,
      code: 'account_import_process_already_imported',
    });
  });
});
