// The API's account look-up cache for writes (shared/accounts/writable-account-cache.ts): a burst for
// the same account costs one look-up; what changes under a remembered account within its TTL (the
// account deleted or no longer imported, the supplier's migration no longer Ongoing, the organisation
// losing the supplier) is answered by the job's account lock exactly as the API answers without the
// cache; a 404 is never remembered; the cache is bounded in entries and in age.
import { resolveWritableAccount } from '../../shared/accounts/account.use-cases';
import { WritableAccountCache } from '../../shared/accounts/writable-account-cache';
import { applyFile } from '../../shared/admin/apply.use-case';
import { AppError } from '../../shared/platform/errors';
import { createTenant, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startTenantApp } from '../helpers/tenant-app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedTransactions,
  type TestAccount,
} from './transactions.fixture';

/** What the API answers for this account without any cache: its refusal's status and body. */
async function uncachedRefusal(app: TestApp, tenant: Tenant, account: TestAccount) {
  try {
    await resolveWritableAccount(app.db, organisationOf(tenant), {
      import_supplier: tenant.supplier,
      external_account_number: account.external,
    });
  } catch (err) {
    if (err instanceof AppError) return { status: err.status, body: err.toBody() };
    throw err;
  }
  throw new Error('the account is still writable');
}

describe('POST /v1/data-import/transactions/create/ — the account look-up cache', () => {
  let app: TestApp;
  // The account look-ups the API runs, counted on the pool it shares with the test (no spy can replace
  // a module's export here): the named statement of shared/accounts/account.repository.ts.
  let lookups = 0;

  // A TTL far longer than any test: every second request within a test is answered from the cache.
  beforeAll(async () => ({ app } = await startTenantApp({ ACCOUNT_CACHE_MS: '60000' }, { workers: true })));
  afterAll(() => app.close());
  beforeEach(() => {
    lookups = 0;
    const pool = app.db.pool;
    const query = pool.query.bind(pool) as (...args: unknown[]) => unknown;
    Object.assign(pool, {
      query: (...args: unknown[]) => {
        if ((args[0] as { name?: string } | undefined)?.name === 'accounts.find-imported-account') lookups += 1;
        return query(...args);
      },
    });
  });
  afterEach(() => {
    delete (app.db.pool as { query?: unknown }).query;
  });

  /** A tenant of its own (its supplier's status is changed by some tests) and an account with one import. */
  async function warmed() {
    const tenant = await createTenant(app);
    const account = await importedAccount(app, tenant);
    const first = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('C-1')]));
    expect(first.status).toBe(201);
    return { tenant, account };
  }

  it('answers a second request for the account without looking it up again', async () => {
    const { tenant, account } = await warmed();

    const second = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('C-2')]));

    expect(second.status).toBe(201);
    expect(lookups).toBe(1);
    expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId)).toEqual(['C-1', 'C-2']);
  });

  it.each([
    ['the account is deleted', (_t: Tenant, a: TestAccount) => [`DELETE FROM accounts WHERE id = $1`, [a.accountId]]],
    [
      'the account is no longer imported',
      (_t: Tenant, a: TestAccount) => [
        `UPDATE account_import_processes SET state = 'FAILED' WHERE id = (SELECT process_id FROM accounts WHERE id = $1)`,
        [a.accountId],
      ],
    ],
    [
      "the supplier's migration is Complete",
      (t: Tenant) => [`UPDATE import_suppliers SET status = 'Complete' WHERE code = $1`, [t.supplier]],
    ],
    [
      "the supplier's migration is Paused",
      (t: Tenant) => [`UPDATE import_suppliers SET status = 'Paused' WHERE code = $1`, [t.supplier]],
    ],
    [
      'the organisation loses the supplier',
      (t: Tenant) => [
        'DELETE FROM organisation_suppliers WHERE organisation_id = $1 AND supplier_code = $2',
        [organisationOf(t), t.supplier],
      ],
    ],
  ] as const)(
    '%s within the TTL: the next request gets the answer it gets without the cache',
    async (_what, change) => {
      const { tenant, account } = await warmed();
      const [sql, values] = change(tenant, account);
      await app.db.pool.query(sql as string, values as unknown[]);
      const expected = await uncachedRefusal(app, tenant, account);

      const second = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('C-2')]));

      expect({ status: second.status, body: second.body }).toEqual(expected);
      expect(lookups).toBe(2); // the first request's and uncachedRefusal's: not the second's
      expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId)).not.toContain('C-2');
      // The refusal made the API forget the account: the next request looks it up again.
      const third = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('C-3')]));
      expect({ status: third.status, body: third.body }).toEqual(expected);
      expect(lookups).toBe(3);
    },
  );

  it('never remembers a 404: an account imported right after it is found at once', async () => {
    const tenant = await createTenant(app);
    const external = `EXT-${uniqueSuffix()}`;
    const body = {
      import_supplier: tenant.supplier,
      external_account_number: external,
      transactions: [payment('N-1')],
    };

    const missing = await postTransactions(app, tenant.token, body);
    await applyFile(app.db, {
      accounts: [
        {
          import_supplier: tenant.supplier,
          external_account_number: external,
          state: 'imported',
          open_statement_from: '2019-10-01',
        },
      ],
    });
    const found = await postTransactions(app, tenant.token, body);

    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('account_not_found');
    expect(found.status).toBe(201);
    expect(lookups).toBe(2);
  });

  it('never remembers a migration that is not Ongoing: set Ongoing again, the next request imports', async () => {
    const tenant = await createTenant(app, { status: 'Paused' });
    const account = await importedAccount(app, tenant);

    const paused = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('P-1')]));
    await app.db.pool.query(`UPDATE import_suppliers SET status = 'Ongoing' WHERE code = $1`, [tenant.supplier]);
    const ongoing = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('P-1')]));

    expect(paused.status).toBe(400);
    expect(paused.body.code).toBe('import_supplier_migration_not_ongoing');
    expect(ongoing.status).toBe(201);
  });
});

describe('WritableAccountCache', () => {
  const account = (accountId: number) => ({
    accountId,
    platformAccountNumber: `P-${accountId}`,
    supplierCode: 'S',
    supplierStatus: 'Ongoing' as const,
    documentRoot: 'imports/s',
  });
  const key = (n: number) => ({ organisationId: 1, supplierCode: 'S', externalAccountNumber: `E-${n}` });

  it('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new WritableAccountCache({ maxEntries: 2, ttlMs: 1000, nowMs: () => 0 });
    cache.set(key(1), account(1));
    cache.set(key(2), account(2));
    expect(cache.get(key(1))).toEqual(account(1)); // 1 is now the most recently used

    cache.set(key(3), account(3));

    expect(cache.size).toBe(2);
    expect(cache.get(key(2))).toBeUndefined();
    expect(cache.get(key(1))).toEqual(account(1));
    expect(cache.get(key(3))).toEqual(account(3));
  });

  it('forgets an entry once its TTL has passed', () => {
    let now = 0;
    const cache = new WritableAccountCache({ maxEntries: 10, ttlMs: 1000, nowMs: () => now });
    cache.set(key(1), account(1));
    now = 999;
    expect(cache.get(key(1))).toEqual(account(1));
    now = 1000;
    expect(cache.get(key(1))).toBeUndefined();
    expect(cache.size).toBe(0);
  });

  it('keys on the organisation, the supplier and the number, none standing for another', () => {
    const cache = new WritableAccountCache({ maxEntries: 10, ttlMs: 1000, nowMs: () => 0 });
    cache.set({ organisationId: 1, supplierCode: 'S,E', externalAccountNumber: '1' }, account(1));
    expect(cache.get({ organisationId: 1, supplierCode: 'S', externalAccountNumber: 'E,1' })).toBeUndefined();
    expect(cache.get({ organisationId: 2, supplierCode: 'S,E', externalAccountNumber: '1' })).toBeUndefined();
  });

  it.each([
    ['size 0', { maxEntries: 0, ttlMs: 1000 }],
    ['TTL 0', { maxEntries: 10, ttlMs: 0 }],
  ])('remembers nothing with %s', (_what, opts) => {
    const cache = new WritableAccountCache({ ...opts, nowMs: () => 0 });
    cache.set(key(1), account(1));
    expect(cache.get(key(1))).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});
