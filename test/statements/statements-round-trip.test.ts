// One statements request is one transaction of at most two statements, sent in one round trip, with
// its run-ledger rows: counted message by message on the pool the app is given.
import { WRITE_STATEMENTS } from '../../shared/statements/statement.repository';
import { createHistoricalStatements } from '../../shared/statements/statement.use-cases';
import { createTenant, type Tenant, type TestApp } from '../helpers/app';
import { explainFunctionOnFreshTables } from '../helpers/fresh-tables';
import { countMessages, type MessageCounter } from '../helpers/pg-messages';
import { startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import { createTenantWithAccounts, importAccount, postStatements, storedStatements } from './statements.fixture';

/** What the statements write reads or writes. */
const WRITE_TABLES = [
  'historical_statements',
  'accounts',
  'account_import_processes',
  'organisation_suppliers',
  'import_suppliers',
  'run_ledger',
];

describe('POST /v1/data-import/historical-statements/create/ — one transaction, two statements, one round trip', () => {
  let app: TestApp;
  let tenant: Tenant;
  let counter: MessageCounter;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts));
    counter = countMessages(app.db.pool, (text) => /FROM api_keys WHERE revoked_at/.test(text));
  });
  afterAll(() => app.close());

  const statement = (id: string) => ({
    statement_id: id,
    bill_period_from_date: '2022-01-01',
    bill_period_to_date: '2022-01-31',
    statement_path: `pdf/${id}.pdf`,
  });

  const ledgerRows = (requestId: string) =>
    app.db.pool
      .query<{ outcome: string; code: string | null; items: number; supplier_code: string | null; xmin: string }>(
        `SELECT outcome, code, items, supplier_code, xmin::text FROM run_ledger WHERE request_id = $1 ORDER BY id`,
        [requestId],
      )
      .then((r) => r.rows);

  async function post(body: unknown, token = tenant.token) {
    counter.reset();
    const res = await postStatements(app, token, body);
    await until('the pool idle', () => (app.db.pool.idleCount === app.db.pool.totalCount ? true : undefined));
    return { res, sent: counter.sent(), requestId: res.headers.get('x-request-id')! };
  }

  it('stores a one-statement request in one transaction of two statements, its ledger row in it', async () => {
    const account = await importAccount(app, tenant);
    const { res, sent, requestId } = await post({
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      statements: [statement('S-1')],
    });
    expect(res.status).toBe(201);
    expect(sent).toEqual({ queries: [], parsed: [expect.any(String), expect.any(String)], executes: 2, syncs: 1 });
    const [stored] = await storedStatements(app, account.id);
    expect(stored!.storageLocation).toMatch(/\/S-1\.pdf$/);
    const { rows } = await app.db.pool.query<{ xmin: string }>(
      'SELECT xmin::text FROM historical_statements WHERE id = $1',
      [stored!.id],
    );
    expect(await ledgerRows(requestId)).toEqual([
      { outcome: 'written', code: null, items: 1, supplier_code: tenant.supplier, xmin: rows[0]!.xmin },
    ]);
  });

  it('refuses a request naming a stored statement_id and stores none of it; the refusal is recorded after', async () => {
    const account = await importAccount(app, tenant);
    const ref = { import_supplier: tenant.supplier, external_account_number: account.number };
    await post({ ...ref, statements: [statement('S-1')] });
    const { res, requestId } = await post({ ...ref, statements: [statement('S-2'), statement('S-1')] });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ attr: 'statements.1.statement_id', code: 'historical_statement_already_exists' }),
    ]);
    expect((await storedStatements(app, account.id)).map((s) => s.statementId)).toEqual(['S-1']);
    expect((await ledgerRows(requestId)).map(({ outcome, items }) => ({ outcome, items }))).toEqual([
      { outcome: 'refused', items: 1 },
      { outcome: 'not_written', items: 1 },
    ]);
  });

  it('a dry run stores nothing and records its ledger row in its two statements', async () => {
    const account = await importAccount(app, tenant);
    const { res, sent, requestId } = await post({
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      dry_run: true,
      statements: [statement('D-1'), statement('D-2')],
    });
    expect(res.status).toBe(201);
    expect(sent.executes).toBe(2);
    expect(sent.syncs).toBe(1);
    expect(await storedStatements(app, account.id)).toEqual([]);
    expect((await ledgerRows(requestId)).map(({ outcome, items }) => ({ outcome, items }))).toEqual([
      { outcome: 'dry_run', items: 2 },
    ]);
  });

  it("answers 404 for an unknown account and for another organisation's, and stores nothing", async () => {
    const other = await createTenantWithAccounts(app);
    for (const [supplier, number] of [
      [tenant.supplier, 'NO-SUCH-ACCOUNT'],
      [other.supplier, 'IMPORTED'],
    ]) {
      const { res } = await post({
        import_supplier: supplier,
        external_account_number: number,
        statements: [statement('X')],
      });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'account_not_found' });
    }
    const stored = await app.db.prisma.historicalStatement.count({
      where: { account: { process: { supplierCode: other.supplier } } },
    });
    expect(stored).toBe(0);
  });

  it('answers 400 import_supplier_migration_not_ongoing for a Paused supplier', async () => {
    const paused = await createTenant(app, {
      status: 'Paused',
      accounts: [{ external_account_number: 'IMPORTED', state: 'imported' }],
    });
    const { res } = await post(
      { import_supplier: paused.supplier, external_account_number: 'IMPORTED', statements: [statement('P')] },
      paused.token,
    );
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('import_supplier_migration_not_ongoing');
    expect(res.body.errors).toEqual([
      {
        attr: 'import_supplier',
        code: 'import_supplier_migration_not_ongoing',
        detail: `Migration for import supplier ${paused.supplier} is Paused; it accepts no data.`,
      },
    ]);
  });

  it('stores a statement once when requests race: the loser fails on the unique index, runs again and is refused', async () => {
    const account = await importAccount(app, tenant);
    const body = {
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      statements: [statement('R-1'), statement(`R-2`)],
    };
    const answers = await Promise.all(Array.from({ length: 6 }, () => postStatements(app, tenant.token, body)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 400, 400, 400, 400, 400]);
    expect(await storedStatements(app, account.id)).toHaveLength(2);
  });

  it('bounds the write: an insert that waits on another transaction fails after the timeout', async () => {
    const account = await importAccount(app, tenant);
    const holder = await app.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date)
         VALUES ($1, 'T-1', '2022-01-01', '2022-01-31')`,
        [account.id],
      );
      const request = {
        import_supplier: tenant.supplier,
        external_account_number: account.number,
        dry_run: false,
        statements: [statement('T-1')],
      };
      const deps = { db: app.db, config: app.config, statementTimeoutMs: 200 };
      const organisationId = tenant.report.organisations[0]!.id;
      await expect(createHistoricalStatements(deps, organisationId, request)).rejects.toMatchObject({
        code: expect.stringMatching(/^(55P03|57014)$/),
      });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await storedStatements(app, account.id)).toEqual([]);
  });

  it('reaches every table through an index in the plan its function keeps, made on small unanalysed tables (no sequential scan)', async () => {
    // On fresh copies: another file may have analysed this worker's tables. The function keeps the plan
    // it made on its first call, however large the tables grow: it must not read a small table whole.
    const plan = await explainFunctionOnFreshTables(app.db.pool, WRITE_TABLES, WRITE_STATEMENTS);
    expect(plan).toMatch(/historical_statements_account_id_statement_id_(key|idx)/);
    expect(plan).not.toMatch(/Seq Scan/);
  });
});
