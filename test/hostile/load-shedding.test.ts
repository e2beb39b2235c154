// Requests that would hold the service's resources are refused at once instead: queued writes over
// their in-flight caps (429 for the organisation, 503 for the process, both with Retry-After), bodies
// of anonymous callers (401 before any byte of the body is parsed), oversized obtainToken documents,
// and nested lists past their bounds.
import { connect } from 'node:net';
import { createTenant, obtainToken, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  supplyCharge,
  type TestAccount,
} from '../transactions/transactions.fixture';

describe('queued writes in flight', () => {
  let app: TestApp;

  beforeAll(async () => {
    // No workers, every write through the queue (DIRECT_COMMIT=off): every accepted write waits its
    // whole RESULT_WAIT_MS, holding its slot.
    app = await startTestApp({
      DIRECT_COMMIT: 'off',
      RESULT_WAIT_MS: '15000',
      QUEUED_REQUESTS_PER_ORGANISATION: '1',
      QUEUED_REQUESTS_PER_PROCESS: '2',
    });
  });
  afterAll(() => app.close());

  async function waitingWrite(tenant: Tenant, account: TestAccount) {
    const answer = postTransactions(app, tenant.token, envelope(tenant, account, [payment(`T-${account.external}`)]));
    await until('the write is queued', async () =>
      (await storedResults(app, organisationOf(tenant))).length > 0 ? true : undefined,
    );
    return { account, answer };
  }

  it('refuses a second one of the same organisation with 429, and one past the process cap with 503, at once', async () => {
    const [a, b, c] = [await createTenant(app), await createTenant(app), await createTenant(app)];
    // Every account first: the checks below must all fall inside the first write's wait.
    const [accountA, accountB, accountC] = [
      await importedAccount(app, a),
      await importedAccount(app, b),
      await importedAccount(app, c),
    ];
    const first = await waitingWrite(a, accountA);

    const started = performance.now();
    const again = await postTransactions(app, a.token, envelope(a, first.account, [payment('T-again')]));
    const refusedMs = performance.now() - started;
    expect([again.status, again.body.code, again.headers.get('retry-after')]).toEqual([
      429,
      'too_many_concurrent_requests',
      String(app.config.LOAD_SHED_RETRY_AFTER_SECONDS),
    ]);
    expect(refusedMs).toBeLessThan(app.config.RESULT_WAIT_MS / 4);

    // Another organisation is not affected by the first one's cap…
    const second = await waitingWrite(b, accountB);
    // …until the process as a whole is full.
    const full = await postTransactions(app, c.token, envelope(c, accountC, [payment('T-c')]));
    expect([full.status, full.body.code, full.headers.get('retry-after')]).toEqual([
      503,
      'server_busy',
      String(app.config.LOAD_SHED_RETRY_AFTER_SECONDS),
    ]);
    expect(await storedResults(app, organisationOf(c))).toEqual([]);

    expect((await first.answer).body.code).toBe('result_pending');
    expect((await second.answer).body.code).toBe('result_pending');
    // Slots come back with the answers.
    const later = await postTransactions(app, c.token, envelope(c, accountC, [payment('T-c')]));
    expect(later.body.code).toBe('result_pending');
  }, 90_000);
});

describe('bodies and nested lists', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ GRAPHQL_BODY_LIMIT_BYTES: '4096' });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  it('answers an anonymous caller 401 before its body has even arrived', async () => {
    const socket = connect(app.api.port, '127.0.0.1');
    socket.on('error', () => undefined);
    const statusLine = new Promise<string>((resolve) =>
      socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1').split('\r\n')[0]!)),
    );
    // Announces 5 MB and sends 1 KB of it: a parser that ran first would wait for the rest.
    socket.write(
      'POST /v1/data-import/notes/create/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
        `Content-Length: ${app.config.BODY_LIMIT_BYTES - 1}\r\n\r\n{"notes":[${'1,'.repeat(500)}`,
    );
    try {
      const line = await Promise.race([
        statusLine,
        new Promise<never>((_, reject) =>
          setTimeout(() => reject(new Error('no answer before the body was complete')), 5_000).unref(),
        ),
      ]);
      expect(line).toBe('HTTP/1.1 401 Unauthorized');
    } finally {
      socket.destroy();
    }
  });

  it('refuses an obtainToken document over its own small limit with 413', async () => {
    const res = await request(app.baseUrl, 'POST', '/v1/graphql/', {
      body: { query: `mutation { obtainToken(input: {APIKey: "${'k'.repeat(8_000)}"}) { token } }` },
    });
    expect([res.status, res.body.code]).toEqual([413, 'request_too_large']);
    expect((await obtainToken(app.baseUrl, { APIKey: tenant.apiKey })).body.data.obtainToken.token).toEqual(
      expect.any(String),
    );
  });

  const lineItem = { start_date: '2019-10-01', end_date: '2019-10-02', number_of_units: '1', net_amount: '0.00' };
  const many = <T>(n: number, make: (i: number) => T) => Array.from({ length: n }, (_, i) => make(i));

  it.each([
    [
      'line_items',
      supplyCharge('T-1', { amount: '0.00', tax_items: [], line_items: many(1_001, () => lineItem) }),
      'line_items',
      'max_length',
    ],
    [
      'tax_items',
      supplyCharge('T-1', {
        tax_items: many(101, () => ({ amount: 0, tax_type: 'VAT', value_taxed: 0, rate: 0, unit_type: 'PROPORTION' })),
      }),
      'tax_items',
      'max_length',
    ],
    [
      'units',
      supplyCharge('T-1', { line_items: [{ ...lineItem, net_amount: '53.24', units: many(500_000, () => 1) }] }),
      'line_items.0.units',
      'line_item_units_must_be_two_values',
    ],
    [
      'params',
      supplyCharge('T-1', {
        line_items: [{ ...lineItem, net_amount: '53.24', params: Object.fromEntries(many(101, (i) => [`k${i}`, i])) }],
      }),
      'line_items.0.params',
      'max_length',
    ],
  ])('refuses a transaction whose %s is longer than its bound, quickly', async (_what, transaction, attr, code) => {
    const account = await importedAccount(app, tenant);
    const started = performance.now();
    const res = await postTransactions(app, tenant.token, envelope(tenant, account, [transaction]));
    // Refused before the items are parsed: 500,000 readings used to cost seconds of validation.
    expect(performance.now() - started).toBeLessThan(3_000);
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({ attr: `transactions.0.${attr}`, code, detail: expect.any(String) });
  });

  it('refuses a note with more than 100 document paths', async () => {
    const account = await importedAccount(app, tenant);
    const res = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token: tenant.token,
      body: envelopeOfNotes(tenant, account.external, [
        { document_paths: many(101, (i) => ({ document_path: `d/${i}.pdf` })) },
      ]),
    });
    expect([res.status, res.body.errors]).toEqual([
      400,
      [{ attr: 'notes.0.document_paths', code: 'max_length', detail: expect.any(String) }],
    ]);
  });
});

const envelopeOfNotes = (tenant: Tenant, external: string, notes: unknown[]) => ({
  import_supplier: tenant.supplier,
  external_account_number: external,
  notes,
});
