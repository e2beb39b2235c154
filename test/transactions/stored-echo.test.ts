// A transaction resent under a transaction_id the account has is answered TRANSACTION_ALREADY_EXISTS with
// the stored transaction as its echo, and `matches_stored: false` next to the status when what was sent
// differs (issue 17 item 11), whether the import runs alone or in a worker's group commit.
import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../shared/platform/db';
import { importTransactionGroup } from '../../shared/transactions/import-group';
import { parseTransactionImport } from '../../shared/transactions/transaction.validation';
import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedTransactions,
} from './transactions.fixture';

describe('POST /v1/data-import/transactions/create/ — an existing transaction is echoed as stored', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({}, { workers: true })));
  afterAll(() => app.close());

  it('answers a resend with another amount and type with the stored transaction and matches_stored: false', async () => {
    const account = await importedAccount(app, tenant);
    const first = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('T-1')]));
    expect(first.status).toBe(201);

    const changed = {
      transaction_id: 'T-1',
      transaction_date: '2019-10-05',
      amount: '99.50',
      type: 'CHARGE',
      reason: 'GENERAL_CREDIT',
    };
    const res = await postTransactions(app, tenant.token, envelope(tenant, account, [changed, payment('T-2')]), {
      idempotencyKey: `stored-echo-${account.external}`,
    });

    expect(res.status).toBe(201);
    expect(res.body.results[0]).toEqual({
      status: 'TRANSACTION_ALREADY_EXISTS',
      matches_stored: false,
      transaction_data: payment('T-1', { amount: '71.00' }),
    });
    expect(Object.keys(res.body.results[0] as object).slice(0, 2)).toEqual(['status', 'matches_stored']);
    expect(res.body.results[1]).not.toHaveProperty('matches_stored');
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => [r.transactionId, r.type, r.amount.toFixed(2)])).toEqual([
      ['T-1', 'PAYMENT', '71.00'],
      ['T-2', 'PAYMENT', '71.00'],
    ]);

    // The stored answer (an Idempotency-Key replay) is the same answer, flag included.
    const replay = await postTransactions(app, tenant.token, envelope(tenant, account, [changed, payment('T-2')]), {
      idempotencyKey: `stored-echo-${account.external}`,
    });
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(res.body);
  });

  it('has no matches_stored when the resend is what is stored, however its decimals are written', async () => {
    const account = await importedAccount(app, tenant);
    await postTransactions(app, tenant.token, envelope(tenant, account, [payment('same', { amount: 71 })]));

    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('same', { amount: '71.000' })]),
    );

    expect(res.body.results).toEqual([
      { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: payment('same', { amount: '71.00' }) },
    ]);
  });

  it("answers each account of a group commit with that account's stored transaction", async () => {
    const accounts = await Promise.all([1, 2, 3, 4].map(() => importedAccount(app, tenant)));
    await Promise.all(
      accounts.map((account, i) =>
        postTransactions(app, tenant.token, envelope(tenant, account, [payment('G', { amount: 10 + i })])),
      ),
    );

    // Sent together, so the workers take them in one group where they can.
    const answers = await Promise.all(
      accounts.map((account, i) =>
        postTransactions(
          app,
          tenant.token,
          envelope(tenant, account, [payment('G', { amount: i % 2 === 0 ? 10 + i : 500 })]),
        ),
      ),
    );

    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    expect(answers.map((a) => a.body.results[0])).toEqual(
      accounts.map((_, i) => ({
        status: 'TRANSACTION_ALREADY_EXISTS',
        ...(i % 2 === 0 ? {} : { matches_stored: false }),
        transaction_data: payment('G', { amount: `${10 + i}.00` }),
      })),
    );
  });

  it('reads every run of one group its stored transactions in the one look-up', async () => {
    const accounts = await Promise.all([1, 2].map(() => importedAccount(app, tenant)));
    for (const [i, account] of accounts.entries()) {
      await postTransactions(app, tenant.token, envelope(tenant, account, [payment('GR', { amount: 20 + i })]));
    }
    const runs = accounts.map((account) => ({
      accountId: account.accountId,
      organisationId: organisationOf(tenant),
      resultId: randomUUID(),
      import: parseTransactionImport({
        options: {},
        request: envelope(tenant, account, [payment('GR', { amount: 20, type: 'REPAYMENT', payment_type: 'BACS' })]),
      }),
    }));

    const outcomes = await inTransaction(app.db, (tx) => importTransactionGroup(tx, runs, new Date(), { wait: false }));

    expect(outcomes.map((o) => (o.body as { results: unknown[] }).results[0])).toEqual([
      {
        status: 'TRANSACTION_ALREADY_EXISTS',
        matches_stored: false,
        transaction_data: payment('GR', { amount: '20.00' }),
      },
      {
        status: 'TRANSACTION_ALREADY_EXISTS',
        matches_stored: false,
        transaction_data: payment('GR', { amount: '21.00' }),
      },
    ]);
  });
});
