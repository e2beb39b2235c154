// The run ledger: every write carries the client's Data-Import-Run-Id into run_ledger with the outcome
// of each item (a refused item's own code at its attr), and GET /v1/data-import/runs/<run_id>/ sums
// a run up for its own organisation only.
import { createTenant, request, type Json, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import { purgeExpiredLedger } from '../../shared/runs/ledger-retention';
import { importAccount } from '../notes/notes.fixture';
import {
  envelope,
  importedAccount,
  payment,
  postTransactions,
  supplyCharge,
} from '../transactions/transactions.fixture';

const RUN_HEADER = 'data-import-run-id';

describe('the run ledger and GET /v1/data-import/runs/<run_id>/', () => {
  let app: TestApp;
  let tenant: Tenant;
  beforeAll(async () => ({ app, tenant } = await startTenantApp({}, { workers: true })));
  afterAll(() => app.close());

  const getRun = (runId: string, token = tenant.token, query = '') =>
    request(app.baseUrl, 'GET', `/v1/data-import/runs/${encodeURIComponent(runId)}/${query}`, { token });
  const post = (path: string, runId: string, body: unknown, token = tenant.token) =>
    request(app.baseUrl, 'POST', `/v1/data-import/${path}/`, { token, body, headers: { [RUN_HEADER]: runId } });
  const ledgerRows = (runId: string) =>
    app.db.prisma.runLedgerEntry.findMany({ where: { runId }, orderBy: { id: 'asc' } });

  it('records notes, statements and transactions of a run, a refused item under its own code and attr', async () => {
    const runId = `run-${uniqueSuffix()}`;
    const notes = await importAccount(app, tenant);
    const tx = await importedAccount(app, tenant);
    const account = { import_supplier: tenant.supplier, external_account_number: notes.number };
    expect((await post('notes/create', runId, { ...account, notes: [{ body: 'a' }, { body: 'b' }] })).status).toBe(201);
    expect((await post('notes/create', runId, { ...account, notes: [{ body: 'a' }] })).status).toBe(201);
    const statement = { statement_id: 'S-1', bill_period_from_date: '2020-01-01', bill_period_to_date: '2020-01-31' };
    expect((await post('historical-statements/create', runId, { ...account, statements: [statement] })).status).toBe(
      201,
    );
    const good = [payment('T-0'), payment('T-1'), payment('T-2')];
    const refused = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, tx, [...good, supplyCharge('T-3', { product_code: 'NO-SUCH-PRODUCT' })]),
      {
        headers: { [RUN_HEADER]: runId },
      },
    );
    expect(refused.status).toBe(400);
    const added = await postTransactions(app, tenant.token, envelope(tenant, tx, good), {
      headers: { [RUN_HEADER]: runId },
    });
    expect(added.status).toBe(201);
    const missing = await post('notes/create', runId, {
      ...account,
      external_account_number: 'NO-SUCH-ACCOUNT',
      notes: [{ body: 'x' }],
    });
    expect(missing.status).toBe(404);

    await until(
      'the 404 recorded',
      async () => (await ledgerRows(runId)).some((r) => r.code === 'account_not_found') || undefined,
    );
    const run = await getRun(runId);
    expect(run.status).toBe(200);
    const body = run.body as Json & Record<string, never>;
    expect(body).toMatchObject({
      run_id: runId,
      requests: 6,
      items: { written: 2 + 1 + 3, skipped: 1, dry_run: 0, refused: 1 + 1, not_written: 3, failed: 0 },
      first_request: { endpoint: 'notes/create', http_status: 201 },
      last_request: { endpoint: 'notes/create', http_status: 404 },
      accounts: { count: 3, next_cursor: null },
    });
    expect(body.by_code).toEqual(
      expect.arrayContaining([
        { outcome: 'refused', code: 'product_code_does_not_exist', items: 1, entries: 1 },
        { outcome: 'refused', code: 'account_not_found', items: 1, entries: 1 },
        { outcome: 'skipped', code: 'NOTE_ALREADY_EXISTS', items: 1, entries: 1 },
      ]),
    );
    const rows = await ledgerRows(runId);
    expect(rows).toContainEqual(
      expect.objectContaining({
        code: 'product_code_does_not_exist',
        attr: 'transactions.3.product_code',
        outcome: 'refused',
      }),
    );
    expect(rows.map((r) => r.code)).not.toContain('transaction_import_error');
    const txAccount = (body.accounts as unknown as { results: Record<string, unknown>[] }).results.find(
      (a) => a.external_account_number === tx.external,
    );
    expect(txAccount).toMatchObject({
      import_supplier: tenant.supplier,
      requests: 2,
      written: 3,
      refused: 1,
      not_written: 3,
    });
  });

  it('records the account of queued writes and of refusals named by the account_number alias', async () => {
    const runId = `alias-${uniqueSuffix()}`;
    const tx = await importedAccount(app, tenant);
    const { external_account_number: external, ...rest } = envelope(tenant, tx, [payment('A-1')]);
    const byAlias = { ...rest, account_number: external };
    const added = await postTransactions(app, tenant.token, byAlias, { headers: { [RUN_HEADER]: runId } });
    expect(added.status).toBe(201);
    const notes = await post('notes/create', runId, { ...byAlias, transactions: undefined, notes: [{ body: '' }] });
    expect(notes.status).toBe(400);
    const rows = await until('both writes recorded', async () => {
      const found = await ledgerRows(runId);
      return found.length >= 2 ? found : undefined;
    });
    expect(rows.map((r) => [r.endpoint, r.outcome, r.supplierCode, r.externalAccountNumber]).sort()).toEqual([
      ['notes/create', 'refused', tenant.supplier, external],
      ['transactions/create', 'written', tenant.supplier, external],
    ]);
  });

  it("answers 404 for another organisation's run, and keeps two organisations' equal run ids apart", async () => {
    const runId = `shared-${uniqueSuffix()}`;
    const other = await createTenant(app);
    const mine = await importAccount(app, tenant);
    const body = { import_supplier: tenant.supplier, external_account_number: mine.number, notes: [{ body: 'n' }] };
    expect((await post('notes/create', runId, body)).status).toBe(201);
    await until('the note recorded', async () => (await ledgerRows(runId)).length > 0 || undefined);
    const theirs = await getRun(runId, other.token);
    expect(theirs.status).toBe(404);
    expect(theirs.body).toMatchObject({ code: 'run_not_found' });
    const theirAccount = await importAccount(app, other);
    const theirBody = {
      import_supplier: other.supplier,
      external_account_number: theirAccount.number,
      notes: [{ body: 'm' }],
    };
    expect((await post('notes/create', runId, theirBody, other.token)).status).toBe(201);
    await until('both notes recorded', async () => (await ledgerRows(runId)).length === 2 || undefined);
    expect(((await getRun(runId)).body as { requests: number }).requests).toBe(1);
    expect(((await getRun(runId, other.token)).body as { requests: number }).requests).toBe(1);
  });

  it('refuses a run id or a cursor that is not one', async () => {
    const long = await getRun('r'.repeat(65));
    expect(long.status).toBe(400);
    expect(long.body).toMatchObject({ code: 'invalid_run_id' });
    const cursor = await getRun('some-run', tenant.token, '?accounts_after=not-a-cursor');
    expect(cursor.status).toBe(400);
    expect(cursor.body).toMatchObject({ code: 'invalid_cursor' });
  });

  it('deletes rows past RUN_LEDGER_RETENTION_DAYS and keeps the rest', async () => {
    const runId = `old-${uniqueSuffix()}`;
    const row = (daysAgo: number) => ({
      organisationId: 1,
      runId,
      requestId: `r-${daysAgo}`,
      endpoint: 'notes/create',
      httpStatus: 201,
      outcome: 'written',
      items: 1,
      recordedAt: new Date(Date.now() - daysAgo * 86_400_000),
    });
    await app.db.prisma.runLedgerEntry.createMany({ data: [row(91), row(89)] });
    expect(await purgeExpiredLedger(app.db, 90, new Date())).toBeGreaterThanOrEqual(1);
    expect((await ledgerRows(runId)).map((r) => r.requestId)).toEqual(['r-89']);
  });

  it('records a refused body whose supplier text no row can hold without that text, and so without its account', async () => {
    const runId = `nul-${uniqueSuffix()}`;
    const res = await post('notes/create', runId, {
      import_supplier: 'A\u0000B',
      external_account_number: 'E',
      notes: [],
    });
    expect(res.status).toBe(400);
    const rows = await until('the refusal recorded', async () => {
      const found = await ledgerRows(runId);
      return found.length > 0 ? found : undefined;
    });
    // An account is recorded only under a supplier the caller may use: without a supplier, no account.
    expect(rows[0]).toMatchObject({ outcome: 'refused', supplierCode: null, externalAccountNumber: null });
  });
});

describe('the run ledger of a queued write that answered 503 result_pending', () => {
  let app: TestApp;
  let tenant: Tenant;
  beforeAll(
    async () =>
      ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '1', DIRECT_COMMIT: 'off' }, { workers: true })),
  );
  afterAll(() => app.close());

  it('is written by the worker when the work finishes, once, under the request id', async () => {
    const runId = `pending-${uniqueSuffix()}`;
    const account = await importedAccount(app, tenant);
    const res = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('P-1'), payment('P-2')]), {
      headers: { [RUN_HEADER]: runId },
    });
    expect(res.status).toBe(503);
    const requestId = (res.body as { request_id: string }).request_id;
    const rows = await until('the worker recorded the answer', async () => {
      const found = await app.db.prisma.runLedgerEntry.findMany({ where: { runId } });
      return found.length > 0 ? found : undefined;
    });
    expect(rows).toEqual([
      expect.objectContaining({
        requestId,
        outcome: 'written',
        code: 'TRANSACTION_ADDED_TO_ACCOUNT',
        items: 2,
        httpStatus: 201,
      }),
    ]);
  });
});
