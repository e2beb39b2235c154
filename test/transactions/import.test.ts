import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  notesOf,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
  supplyCharge,
} from './transactions.fixture';

describe('POST /v1/data-import/transactions/create/ (API and workers)', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({}, { workers: true })));
  afterAll(() => app.close());

  it("imports the contract's example payload and echoes every transaction with decimals as strings", async () => {
    const account = await importedAccount(app, tenant);
    // Contract §2.5 (Origin) with our supplier and account; 2019-10-01 is the open period's first day.
    const example = {
      import_supplier: tenant.supplier,
      external_account_number: account.external,
      transactions: [
        {
          transaction_id: '1',
          transaction_date: '2019-10-01',
          amount: 10.0,
          type: 'CHARGE',
          reason: 'IMPORTED_CHARGE',
          display_note: 'Some customer facing note about the charge.',
          note: 'Some internal note about the charge.',
        },
        {
          transaction_id: '2',
          transaction_date: '2019-10-01',
          amount: 10.0,
          type: 'CREDIT',
          reason: 'IMPORTED_CREDIT',
          display_note: 'Some customer facing note about the credit.',
          note: 'Some internal note about the credit.',
        },
        {
          transaction_id: '3',
          transaction_date: '2019-10-01',
          amount: 10.0,
          type: 'PAYMENT',
          reason: 'ACCOUNT_CHARGE_PAYMENT',
          reference: 'payment-reference-1',
          payment_type: 'DD_REGULAR_COLLECTION',
          note: 'Some internal note about the payment.',
        },
        {
          transaction_id: '4',
          transaction_date: '2019-10-01',
          amount: 10.0,
          type: 'REPAYMENT',
          reason: 'FULL_CREDIT_REFUND',
          reference: 'repayment-reference-1',
          payment_type: 'DIRECT_CREDIT',
          note: 'Some internal note about the repayment.',
        },
        supplyCharge('5', { display_note: 'Some customer facing note about the supply charge.' }),
      ],
    };

    const res = await postTransactions(app, tenant.token, example);

    expect(res.status).toBe(201);
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.transactionId)).toEqual(['1', '2', '3', '4', '5']);
    expect(res.body.results).toHaveLength(5);
    res.body.results.forEach((result: { status: string; added_transaction_id: number }, i: number) => {
      expect(result.status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
      expect(result.added_transaction_id).toBe(Number(rows[i]!.id));
    });
    expect(res.body.results.slice(0, 4).map((r: { transaction_data: unknown }) => r.transaction_data)).toEqual(
      example.transactions.slice(0, 4).map((t) => ({ ...t, amount: '10.00' })),
    );
    expect(res.body.results[4].transaction_data).toEqual({
      transaction_id: '5',
      transaction_date: '2019-10-01',
      amount: '53.24',
      type: 'SUPPLY_CHARGE',
      display_note: 'Some customer facing note about the supply charge.',
      product_code: 'SOME-PRODUCT-CODE-4321',
      line_items: [
        {
          rate_band: 'CONSUMPTION_STANDARD',
          start_date: '2019-10-01',
          end_date: '2019-11-01',
          number_of_units: '4.00',
          net_amount: '44.00',
          price_per_unit: '11.00',
          units: ['4.00', '8.00'],
        },
      ],
      tax_items: [{ amount: '9.24', tax_type: 'VAT', value_taxed: '44.00', rate: '0.21', unit_type: 'PROPORTION' }],
    });
    expect(rows[2]).toMatchObject({
      type: 'PAYMENT',
      reason: 'ACCOUNT_CHARGE_PAYMENT',
      reference: 'payment-reference-1',
      paymentType: 'DD_REGULAR_COLLECTION',
      note: 'Some internal note about the payment.',
      originalDate: null,
      description: null,
    });
    expect(rows[4]!.productCode).toBe('SOME-PRODUCT-CODE-4321');
    expect(rows[4]!.lineItems).toEqual(res.body.results[4].transaction_data.line_items);
    expect(rows[4]!.submitted).toEqual(res.body.results[4].transaction_data);
    expect(rows[4]).toMatchObject({
      displayNote: 'Some customer facing note about the supply charge.',
      taxItems: res.body.results[4].transaction_data.tax_items,
    });
    expect(rows.map((r) => [r.type, r.amount.toFixed(2)])).toEqual([
      ['CHARGE', '10.00'],
      ['CREDIT', '10.00'],
      ['PAYMENT', '10.00'],
      ['REPAYMENT', '10.00'],
      ['SUPPLY_CHARGE', '53.24'],
    ]);
    // Fields a transaction does not carry are SQL NULL, not JSON null or an empty string.
    const { rows: absent } = await app.db.pool.query<{ transaction_id: string; absent: string[] }>(
      `SELECT transaction_id, array_remove(ARRAY[
                CASE WHEN line_items IS NULL THEN 'line_items' END, CASE WHEN tax_items IS NULL THEN 'tax_items' END,
                CASE WHEN reason IS NULL THEN 'reason' END, CASE WHEN payment_type IS NULL THEN 'payment_type' END,
                CASE WHEN product_code IS NULL THEN 'product_code' END], NULL) AS absent
         FROM transactions WHERE account_id = $1 ORDER BY id`,
      [account.accountId],
    );
    expect(absent.map((r) => r.absent)).toEqual([
      ['line_items', 'tax_items', 'payment_type', 'product_code'],
      ['line_items', 'tax_items', 'payment_type', 'product_code'],
      ['line_items', 'tax_items', 'product_code'],
      ['line_items', 'tax_items', 'product_code'],
      ['reason', 'payment_type'],
    ]);
    expect(await notesOf(app, account.accountId)).toEqual([]);
  });

  it('finds the account by the deprecated account_number alias, as the contract accepts it', async () => {
    const account = await importedAccount(app, tenant);
    const { external_account_number: external, ...rest } = envelope(tenant, account, [payment('alias-1')]);

    const res = await postTransactions(app, tenant.token, { ...rest, account_number: external });

    expect(res.status).toBe(201);
    expect((await storedTransactions(app, account.accountId)).map((r) => r.transactionId)).toEqual(['alias-1']);
  });

  it('echoes amounts with at least two places and never rounds a submitted digit away', async () => {
    const account = await importedAccount(app, tenant);
    const amounts: [unknown, string][] = [
      ['10.0', '10.00'],
      ['0.1234567891', '0.1234567891'],
      [5, '5.00'],
      [0.5, '0.50'],
      ['-12.5', '-12.50'],
      ['9999999999.9999999999', '9999999999.9999999999'],
    ];
    const res = await postTransactions(
      app,
      tenant.token,
      envelope(
        tenant,
        account,
        amounts.map(([amount], i) => ({
          transaction_id: `A${i}`,
          transaction_date: '2019-10-02',
          amount,
          type: 'CHARGE',
        })),
      ),
    );

    expect(res.status).toBe(201);
    expect(res.body.results.map((r: { transaction_data: { amount: string } }) => r.transaction_data.amount)).toEqual(
      amounts.map(([, echoed]) => echoed),
    );
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.amount.toFixed(10))).toEqual([
      '10.0000000000',
      '0.1234567891',
      '5.0000000000',
      '0.5000000000',
      '-12.5000000000',
      '9999999999.9999999999',
    ]);
  });

  it('moves a transaction dated before the open period to its first day, describes the move and pins one note listing the moves', async () => {
    const account = await importedAccount(app, tenant);
    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [
        payment('early-1', { transaction_date: '2019-09-28' }),
        payment('inside', { transaction_date: '2019-10-04' }),
        payment('early-2', { transaction_date: '2018-01-31', amount: '12.5' }),
      ]),
    );

    expect(res.status).toBe(201);
    // The echo keeps the submitted date; the stored transaction carries the moved one.
    expect(
      res.body.results.map(
        (r: { transaction_data: { transaction_date: string } }) => r.transaction_data.transaction_date,
      ),
    ).toEqual(['2019-09-28', '2019-10-04', '2018-01-31']);
    const rows = await storedTransactions(app, account.accountId);
    const day = (d: Date | null) => d?.toISOString().slice(0, 10) ?? null;
    expect(rows.map((r) => [r.transactionId, day(r.transactionDate), day(r.originalDate)])).toEqual([
      ['early-1', '2019-10-01', '2019-09-28'],
      ['inside', '2019-10-04', null],
      ['early-2', '2019-10-01', '2018-01-31'],
    ]);
    expect(rows[0]!.description).toMatch(/2019-09-28/);
    expect(rows[0]!.description).toMatch(/2019-10-01/);
    expect(rows[1]!.description).toBeNull();
    const notes = await notesOf(app, account.accountId);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.isPinned).toBe(true);
    expect(notes[0]!.body).toContain('early-1');
    expect(notes[0]!.body).toContain('early-2');
    expect(notes[0]!.body).toContain('2018-01-31');
    expect(notes[0]!.body).not.toContain('inside');
  });

  it('moves a transaction dated after a bounded open period to its last day', async () => {
    const account = await importedAccount(app, tenant);
    await app.db.prisma.statementPeriod.updateMany({
      where: { accountId: account.accountId, isOpen: true },
      data: { endsOn: new Date('2019-10-15T00:00:00Z') },
    });

    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('late', { transaction_date: '2019-10-20' })]),
      { query: 'force_add_to_current_statement=TRUE' },
    );

    expect(res.status).toBe(201);
    const [row] = await storedTransactions(app, account.accountId);
    expect(row!.transactionDate.toISOString().slice(0, 10)).toBe('2019-10-15');
    expect(row!.originalDate!.toISOString().slice(0, 10)).toBe('2019-10-20');
    expect(await notesOf(app, account.accountId)).toHaveLength(1);
  });

  it('when transactions are outside the open period and force is false, it rejects the whole batch naming the first and listing each', async () => {
    const account = await importedAccount(app, tenant);
    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [
        payment('fine', { transaction_date: '2019-10-02' }),
        payment('1', { transaction_date: '2019-09-28' }),
        payment('2', { transaction_date: '2019-09-29' }),
      ]),
      { query: 'force_add_to_current_statement=False', idempotencyKey: `reject-${account.external}` },
    );

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      status: 'TRANSACTION_IMPORT_ERROR',
      error_detail: expect.stringContaining('2019-09-28') as unknown,
      transaction_data: payment('1', { transaction_date: '2019-09-28', amount: '71.00' }),
      errors: [
        {
          attr: 'transactions.1.transaction_date',
          code: 'transaction_outside_open_statement_period',
          detail: expect.any(String) as unknown,
        },
        {
          attr: 'transactions.2.transaction_date',
          code: 'transaction_outside_open_statement_period',
          detail: expect.stringContaining('"2"') as unknown,
        },
      ],
    });
    expect(res.body.error_detail).toContain('"1"');
    expect(res.body.error_detail).toContain('2019-10-01');
    expect(res.body.error_detail).toContain(account.platformAccountNumber);
    expect(await storedTransactions(app, account.accountId)).toEqual([]);
    expect(await notesOf(app, account.accountId)).toEqual([]);
    // A business rejection is a stored answer, not a failed job.
    const stored = (await storedResults(app, organisationOf(tenant))).find(
      (r) => r.idempotencyKey === `reject-${account.external}`,
    );
    expect(stored).toMatchObject({ httpStatus: 400, body: res.body });
  });

  it('skips transactions the account already has and adds the new ones', async () => {
    const account = await importedAccount(app, tenant);
    const first = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('1')]));
    expect(first.status).toBe(201);

    const second = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('1'), payment('2')]));

    expect(second.status).toBe(201);
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.transactionId)).toEqual(['1', '2']);
    expect(second.body.results).toEqual([
      { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: payment('1', { amount: '71.00' }) },
      {
        status: 'TRANSACTION_ADDED_TO_ACCOUNT',
        transaction_data: payment('2', { amount: '71.00' }),
        added_transaction_id: Number(rows[1]!.id),
      },
    ]);
  });

  it('with check_previously_added=0 adds a transaction_id the account already has again', async () => {
    const account = await importedAccount(app, tenant);
    await postTransactions(app, tenant.token, envelope(tenant, account, [payment('1')]));

    const again = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('1')]), {
      query: 'check_previously_added=0',
    });

    expect(again.status).toBe(201);
    expect(again.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.transactionId)).toEqual(['1', '1']);
    expect(again.body.results[0].added_transaction_id).toBe(Number(rows[1]!.id));
  });

  it('with dry_run reports what would happen and writes no transaction and no note', async () => {
    const account = await importedAccount(app, tenant);
    await postTransactions(app, tenant.token, envelope(tenant, account, [payment('old')]));

    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('old'), payment('new', { transaction_date: '2019-09-01' })], {
        dry_run: true,
      }),
    );

    expect(res.status).toBe(201);
    expect(res.body.results).toEqual([
      { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: payment('old', { amount: '71.00' }) },
      {
        status: 'TRANSACTION_ADDED_TO_ACCOUNT',
        transaction_data: payment('new', { transaction_date: '2019-09-01', amount: '71.00' }),
      },
    ]);
    expect((await storedTransactions(app, account.accountId)).map((r) => r.transactionId)).toEqual(['old']);
    expect(await notesOf(app, account.accountId)).toEqual([]);
  });

  it('with dry_run and force=false still reports the rejection a real run would get', async () => {
    const account = await importedAccount(app, tenant);
    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('early', { transaction_date: '2019-09-01' })], { dry_run: true }),
      { query: 'force_add_to_current_statement=0' },
    );
    expect(res.status).toBe(400);
    expect(res.body.status).toBe('TRANSACTION_IMPORT_ERROR');
  });

  it('adds a transaction_id exactly once when eight identical requests for one account race', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('race'), supplyCharge('race-supply')]);

    const responses = await Promise.all(Array.from({ length: 8 }, () => postTransactions(app, tenant.token, body)));

    expect(responses.map((r) => r.status)).toEqual(Array(8).fill(201));
    const statuses = responses.map((r) => r.body.results.map((x: { status: string }) => x.status).join(','));
    expect(statuses.filter((s) => s === 'TRANSACTION_ADDED_TO_ACCOUNT,TRANSACTION_ADDED_TO_ACCOUNT')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'TRANSACTION_ALREADY_EXISTS,TRANSACTION_ALREADY_EXISTS')).toHaveLength(7);
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.transactionId).sort()).toEqual(['race', 'race-supply']);
  });

  it('replays the stored answer for a repeated Idempotency-Key and refuses the key with a different body', async () => {
    const account = await importedAccount(app, tenant);
    const key = `key-${account.external}`;
    const body = envelope(tenant, account, [payment('idem')]);

    const first = await postTransactions(app, tenant.token, body, { idempotencyKey: key });
    const replay = await postTransactions(app, tenant.token, body, { idempotencyKey: key });
    const reused = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('other')]), {
      idempotencyKey: key,
    });

    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(reused.status).toBe(422);
    expect(reused.body).toEqual({ detail: expect.any(String) as unknown, code: 'idempotency_key_reused' });
    expect((await storedTransactions(app, account.accountId)).map((r) => r.transactionId)).toEqual(['idem']);
  });

  it('treats the same options written differently as the same request for an Idempotency-Key', async () => {
    const account = await importedAccount(app, tenant);
    const key = `key-opts-${account.external}`;
    const body = envelope(tenant, account, [payment('opt')]);

    const first = await postTransactions(app, tenant.token, body, {
      idempotencyKey: key,
      query: 'check_previously_added=1',
    });
    const replay = await postTransactions(app, tenant.token, body, {
      idempotencyKey: key,
      query: 'check_previously_added=true',
    });

    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(await storedTransactions(app, account.accountId)).toHaveLength(1);
  });
});
