// With the default DB_PREPARED_STATEMENTS=unnamed nothing on the process's pool leaves a named prepared
// statement on the server (a transaction-mode pooler could hand it to another client): not the
// repositories' named statements, not Prisma's adapter, not the streamed lists' cursors. After a mix of
// reads, streamed lists and queued and direct writes (API and workers on one pool), every connection of
// the pool is taken at once and asked what it has prepared (pg_prepared_statements is per session).
import type { PoolClient } from 'pg';
import { createTenant, request, startTestApp, type TestApp } from '../helpers/app';
import { importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

/** Named statements the server holds, per connection of the pool. */
async function preparedPerConnection(app: TestApp): Promise<number[]> {
  const held: PoolClient[] = [];
  try {
    // Idle connections are handed out first: taking as many as exist takes every one of them.
    const total = app.db.pool.totalCount;
    for (let i = 0; i < total; i++) held.push(await app.db.pool.connect());
    const counts: number[] = [];
    for (const client of held) {
      const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM pg_prepared_statements');
      counts.push(rows[0]!.n);
    }
    return counts;
  } finally {
    for (const client of held) client.release();
  }
}

async function exercise(app: TestApp): Promise<number[]> {
  const tenant = await createTenant(app);
  const accounts = await Promise.all([1, 2, 3].map(() => importedAccount(app, tenant)));
  const answers = await Promise.all([
    ...accounts.map((a) =>
      request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${tenant.supplier}/${a.external}/`, {
        token: tenant.token,
      }),
    ),
    request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${tenant.supplier}/`, {
      token: tenant.token,
    }),
    ...accounts.map((a, i) =>
      postTransactions(app, tenant.token, {
        import_supplier: tenant.supplier,
        external_account_number: a.external,
        transactions: [payment(`unnamed-${i}`)],
      }),
    ),
    ...accounts.map((a) =>
      request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
        token: tenant.token,
        body: { import_supplier: tenant.supplier, external_account_number: a.external, notes: [{ body: 'n' }] },
      }),
    ),
  ]);
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 201, 201, 201, 201, 201, 201]);
  return preparedPerConnection(app);
}

describe('prepared statements on the pool', () => {
  let app: TestApp | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  it('leaves none named on any connection with the default setting', async () => {
    app = await startTestApp({ DB_POOL_SIZE: '4' }, { workers: true });
    const counts = await exercise(app);
    expect(counts.length).toBeGreaterThan(0);
    expect(counts).toEqual(counts.map(() => 0));
  }, 60_000);

  // The probe can see them: with `named` the same work leaves the repositories' statements behind.
  it('finds them with DB_PREPARED_STATEMENTS=named', async () => {
    app = await startTestApp({ DB_POOL_SIZE: '4', DB_PREPARED_STATEMENTS: 'named' }, { workers: true });
    const counts = await exercise(app);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  }, 60_000);
});
