// Issue 17 item 8: one 400 names the first failing transaction in request order and lists every failing
// one, whichever check each fails: the field checks (API) or the stored-data checks (open period,
// product catalogue, already present), which the API also runs when field checks fail. Never queued.
import { Queue } from 'bullmq';
import { countJobs, openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
  supplyCharge,
  type TestAccount,
} from './transactions.fixture';

type Item = Record<string, unknown>;

const OUTSIDE = (): Item => payment('outside', { transaction_date: '2019-09-01' });
const VALID = (): Item => payment('valid');
const BAD_DATE = (): Item => payment('bad-date', { transaction_date: '2019-02-30' });

/** The error each item of the example gets, by transaction_id (the valid one gets none). */
const EXPECTED: Record<string, { field: string; code: string } | undefined> = {
  outside: { field: 'transaction_date', code: 'transaction_outside_open_statement_period' },
  valid: undefined,
  'bad-date': { field: 'transaction_date', code: 'invalid' },
};

function permutations<T>(items: T[]): T[][] {
  if (items.length <= 1) return [items];
  return items.flatMap((item, i) =>
    permutations([...items.slice(0, i), ...items.slice(i + 1)]).map((rest) => [item, ...rest]),
  );
}

describe('a 400 lists every failing transaction, whatever check it fails', () => {
  let app: TestApp;
  let tenant: Tenant;
  let account: TestAccount;
  let queue: Queue;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({}, { workers: true }));
    account = await importedAccount(app, tenant);
    queue = openTransactionsQueue(app);
  });
  afterAll(async () => {
    await queue.close();
    await app.close();
  });

  const jobCount = () => countJobs(queue);

  /** Posts with force_add_to_current_statement=false; proves nothing was queued, stored or written. */
  async function rejected(on: TestAccount, items: Item[]) {
    const before = { results: (await storedResults(app, organisationOf(tenant))).length, jobs: await jobCount() };
    const stored = await storedTransactions(app, on.accountId);
    const res = await postTransactions(app, tenant.token, envelope(tenant, on, items), {
      query: 'force_add_to_current_statement=false',
    });
    expect(res.status).toBe(400);
    expect((await storedResults(app, organisationOf(tenant))).length).toBe(before.results);
    expect(await jobCount()).toBe(before.jobs);
    expect(await storedTransactions(app, on.accountId)).toEqual(stored);
    return res.body;
  }

  const attrsAndCodes = (body: { errors: { attr: string; code: string }[] }) =>
    body.errors.map((e) => [e.attr, e.code]);

  it.each(permutations([OUTSIDE, VALID, BAD_DATE]).map((p) => [p.map((f) => f().transaction_id).join(', '), p]))(
    '[%s]: names the first failing one on top and lists both, in request order',
    async (_name, order) => {
      const items = order.map((make) => make());
      const body = await rejected(account, items);

      const failing = items.flatMap((item, i) => {
        const expected = EXPECTED[item.transaction_id as string];
        return expected ? [{ i, item, expected }] : [];
      });
      expect(body.status).toBe('TRANSACTION_IMPORT_ERROR');
      expect(body.transaction_data.transaction_id).toBe(failing[0]!.item.transaction_id);
      expect(attrsAndCodes(body)).toEqual(
        failing.map(({ i, expected }) => [`transactions.${i}.${expected.field}`, expected.code]),
      );
    },
  );

  it('lists a product the catalogue lacks next to a field error', async () => {
    const body = await rejected(account, [
      payment('bad-amount', { amount: 'x' }),
      supplyCharge('no-product', { product_code: 'NO-SUCH-PRODUCT' }),
    ]);
    expect(body.transaction_data.transaction_id).toBe('bad-amount');
    expect(attrsAndCodes(body)).toEqual([
      ['transactions.0.amount', 'invalid'],
      ['transactions.1.product_code', 'product_code_does_not_exist'],
    ]);
  });

  it('names a stored-data failure on top when it comes first, with its own detail and normalised echo', async () => {
    const body = await rejected(account, [OUTSIDE(), BAD_DATE()]);
    expect(body.error_detail).toContain('not within the open statement period');
    expect(body.transaction_data).toEqual({ ...OUTSIDE(), amount: '71.00' });
  });

  it('holds a transaction already on the account to no period, as the worker does', async () => {
    const own = await importedAccount(app, tenant);
    const first = await postTransactions(app, tenant.token, envelope(tenant, own, [OUTSIDE()]));
    expect(first.status).toBe(201);

    const body = await rejected(own, [OUTSIDE(), BAD_DATE()]);
    expect(attrsAndCodes(body)).toEqual([['transactions.1.transaction_date', 'invalid']]);
  });

  it('answers the field errors alone when the account does not exist (a 400 comes before a 404)', async () => {
    const missing = { ...account, external: 'NO-SUCH-ACCOUNT' };
    const res = await postTransactions(app, tenant.token, envelope(tenant, missing, [OUTSIDE(), BAD_DATE()]), {
      query: 'force_add_to_current_statement=false',
    });
    expect([res.status, attrsAndCodes(res.body)]).toEqual([400, [['transactions.1.transaction_date', 'invalid']]]);
  });
});
