// The eight endpoints against the published contract's own schemas (adapted only by the deliberate
// differences listed in published-contract.ts): the contract's examples, our document's examples, and
// what the running service answers, including the contract's example payloads sent as they are.
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';
import { operationsOf, testDocument } from './openapi.helpers';
import { DELIBERATE_DIFFERENCES, ENDPOINTS, loadPublishedContract, type Endpoint } from './published-contract';

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- parsed JSON of both documents */
type Json = any;

const contract = loadPublishedContract();
const document = testDocument();
const ALL = Object.keys(ENDPOINTS) as Endpoint[];
const WRITES = ['notes', 'statements', 'transactions', 'paymentInstruction'] as const satisfies Endpoint[];

/** Our document's operation at the contract's path: request examples, and response examples by status. */
function ourExamples(endpoint: Endpoint) {
  const { method, path } = ENDPOINTS[endpoint];
  const op = operationsOf(document).find((o) => o.method === method && o.path === path);
  if (!op) throw new Error(`our document lacks ${method} ${path}`);
  const values = (content: Json): unknown[] =>
    Object.values((content?.['application/json']?.examples ?? {}) as Record<string, { value: unknown }>).map(
      (e) => e.value,
    );
  return {
    request: values(op.operation.requestBody?.content),
    responses: Object.entries(op.operation.responses).map(([status, r]) => ({
      status: Number(status),
      values: values(r.content),
    })),
  };
}

describe('the published contract', () => {
  it('lists each deliberate difference with its reason', () => {
    expect(DELIBERATE_DIFFERENCES.length).toBeGreaterThan(0);
    for (const d of DELIBERATE_DIFFERENCES) expect([d.what.length > 0, d.why.length > 0]).toEqual([true, true]);
  });

  it.each(WRITES)(
    'accepts its own %s request examples once adapted (so the adaptation hides nothing it checks)',
    (endpoint) => {
      const { request: examples } = contract.examples(endpoint);
      expect(examples.length).toBeGreaterThan(0);
      for (const example of examples) expect(contract.requestErrors(endpoint, example)).toEqual([]);
    },
  );

  it.each(WRITES)('accepts every %s request example of our document', (endpoint) => {
    const { request: examples } = ourExamples(endpoint);
    expect(examples.length).toBeGreaterThan(0);
    for (const example of examples) expect(contract.requestErrors(endpoint, example)).toEqual([]);
  });

  it.each(ALL)('accepts every %s success and 404 example of our document', (endpoint) => {
    const checked = ourExamples(endpoint).responses.filter(
      (r) => r.status < 300 || (r.status === 404 && endpoint === 'transferStatus'),
    );
    expect(checked.flatMap((r) => r.values).length).toBeGreaterThan(0);
    for (const { status, values } of checked)
      for (const value of values) expect(contract.responseErrors(endpoint, status, value)).toEqual([]);
  });
});

describe('the running service against the published contract', () => {
  let fake: FakeStripe;
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    fake = await startFakeStripe({ secretKey: `sk_test_${uniqueSuffix()}`, slowMs: 1_000 });
    app = await startTestApp({ STRIPE_API_BASE: fake.url, STRIPE_SECRET_KEY: fake.secretKey }, { workers: true });
    tenant = await createTenant(app, {
      accounts: [{ external_account_number: `PENDING-${uniqueSuffix()}`, state: 'staged' }],
    });
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  /** A fresh imported account of the tenant (each write gets its own: statement ids and charges are once per account). */
  async function importedAccount(): Promise<string> {
    const external = `EXT-${uniqueSuffix()}`;
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
    return external;
  }

  const send = (endpoint: Endpoint, external: string, body?: unknown) => {
    const path = ENDPOINTS[endpoint].path
      .replace('{import_supplier_code}', tenant.supplier)
      .replace('{external_account_number}', external);
    const headers = { 'idempotency-key': `contract-${uniqueSuffix()}` };
    return request(app.baseUrl, ENDPOINTS[endpoint].method.toUpperCase(), path, { token: tenant.token, body, headers });
  };

  /** The example with our supplier and a fresh account; a payment instruction's reference made a card at the fake vendor. */
  async function asOurs(endpoint: Endpoint, example: unknown): Promise<{ external: string; body: Json }> {
    const external = await importedAccount();
    const body: Json = { ...(example as object), import_supplier: tenant.supplier, external_account_number: external };
    if (endpoint === 'paymentInstruction') {
      // A deliberate difference: a STRIPE reference is a PaymentMethod id.
      if (!/^pm_[A-Za-z0-9]+$/.test(String(body.reference)))
        body.reference = `pm_${String(body.reference).replace(/[^A-Za-z0-9]/g, '')}`;
      fake.addCard({ id: body.reference as string });
    }
    return { external, body };
  }

  it.each(WRITES)("accepts the contract's own %s examples and answers in its response schema", async (endpoint) => {
    for (const example of [...contract.examples(endpoint).request, ...ourExamples(endpoint).request]) {
      const { body } = await asOurs(endpoint, example);
      const res = await send(endpoint, '', body);
      expect([endpoint, res.status]).toEqual([endpoint, 201]);
      expect(contract.responseErrors(endpoint, res.status, res.body)).toEqual([]);
    }
  });

  it("answers a refused transaction in the contract's 400 schema, added_transaction_id as an integer", async () => {
    const [example] = contract.examples('transactions').request as Json[];
    const { external, body } = await asOurs('transactions', example);
    const refused = await send('transactions', external, {
      ...body,
      transactions: [{ ...body.transactions[0], amount: 'ten' }],
    });
    expect(refused.status).toBe(400);
    expect(contract.responseErrors('transactions', 400, refused.body)).toEqual([]);

    const added = await send('transactions', external, body);
    expect(added.status).toBe(201);
    expect(Number.isInteger(added.body.results[0].added_transaction_id)).toBe(true);
    expect(contract.responseErrors('transactions', 201, added.body)).toEqual([]);
  });

  it("answers the status of imported, pending and unknown accounts and every list in the contract's schemas", async () => {
    const imported = await importedAccount();
    const pending = tenant.report.accounts[0]!.external_account_number;
    for (const external of [imported, pending]) {
      const res = await send('transferStatus', external);
      expect(res.status).toBe(200);
      expect(contract.responseErrors('transferStatus', 200, res.body)).toEqual([]);
    }
    const unknown = await send('transferStatus', 'NO-SUCH-ACCOUNT');
    expect(unknown.status).toBe(404);
    expect(contract.responseErrors('transferStatus', 404, unknown.body)).toEqual([]);

    for (const endpoint of ['allProcesses', 'pendingProcesses', 'importedProcesses'] as const) {
      const res = await send(endpoint, '');
      expect([endpoint, res.status]).toEqual([endpoint, 200]);
      expect((res.body as unknown[]).length).toBeGreaterThan(0);
      expect(contract.responseErrors(endpoint, 200, res.body)).toEqual([]);
    }
  });
});
