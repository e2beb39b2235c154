// The document against the running service (API + workers, real PostgreSQL and Redis, a fake Stripe):
// every route it registers is documented, every request example is accepted with the documented
// success status, and the answers match the documented schemas and examples.
import type { Express } from 'express';
import { buildOpenApiDocument, type OpenApiDocument } from '../../shared/catalog/openapi-document';
import * as ex from '../../shared/openapi/examples';
import { createTenant, request, startTestApp, type Json, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';
import {
  operation,
  operationsOf,
  requestExamples,
  responseSchemaPointer,
  schemaChecker,
  successStatus,
  type DocumentedOperation,
} from './openapi.helpers';
import { pathShape, registeredRoutes } from './routes';

// Staff pages (api/staff: sign-in, support page, queue dashboard) are HTML for staff, not the API;
// /docs/* are the documentation page's own assets.
const UNDOCUMENTED = [/^\/login$/, /^\/logout$/, /^\/support(\/|$)/, /^\/admin\//, /^\/docs\/./];
const METRICS_TOKEN = `metrics-${uniqueSuffix()}-0123456789`;

describe('the document against the running service', () => {
  let fake: FakeStripe;
  let app: TestApp;
  let tenant: Tenant;
  let document: OpenApiDocument;
  let checker: ReturnType<typeof schemaChecker>;
  let platformAccountNumber: string;

  beforeAll(async () => {
    fake = await startFakeStripe({ secretKey: `sk_test_${uniqueSuffix()}`, slowMs: 1_000 });
    fake.addCard({ id: ex.paymentInstructionRequest.reference });
    app = await startTestApp(
      { STRIPE_API_BASE: fake.url, STRIPE_SECRET_KEY: fake.secretKey, METRICS_TOKEN },
      { workers: true },
    );
    tenant = await createTenant(app, {
      accounts: [
        { external_account_number: ex.EXTERNAL_ACCOUNT, state: 'imported', open_statement_from: '2019-10-01' },
      ],
    });
    platformAccountNumber = tenant.report.accounts[0]!.platform_account_number!;
    document = buildOpenApiDocument(app.config);
    checker = schemaChecker(document);
  });
  afterAll(async () => {
    await app?.close();
    await fake?.close();
  });

  const ofTenant = <T extends object>(example: T): T => ({ ...example, import_supplier: tenant.supplier });
  const pathOf = (op: DocumentedOperation) =>
    op.path
      .replace('{import_supplier_code}', tenant.supplier)
      .replace('{external_account_number}', ex.EXTERNAL_ACCOUNT);
  const send = (op: DocumentedOperation, body?: unknown, headers: Record<string, string> = {}, token = tenant.token) =>
    request(app.baseUrl, op.method.toUpperCase(), pathOf(op), { token, body, headers });

  function expectDocumented(op: DocumentedOperation, res: Json, status = successStatus(op)): void {
    expect([op.operation.operationId, res.status]).toEqual([op.operation.operationId, status]);
    expect(checker.errors(responseSchemaPointer(op, status), res.body)).toEqual([]);
  }

  const responseExample = (op: DocumentedOperation, status: number, name: string) =>
    op.operation.responses[String(status)]!.content!['application/json']!.examples![name]!.value;

  it('documents every route the app registers, with its method and path template, and no route it lacks', () => {
    const express = app.api.server.listeners('request')[0] as Express;
    const registered = registeredRoutes(express)
      .filter((r) => !UNDOCUMENTED.some((pattern) => pattern.test(r.path)))
      .map((r) => `${r.method.toUpperCase()} ${pathShape(r.path)}`);
    const documented = operationsOf(document).map((o) => `${o.method.toUpperCase()} ${pathShape(o.path)}`);
    expect([...new Set(registered)].sort()).toEqual([...new Set(documented)].sort());
    expect(documented).toHaveLength(24);
  });

  it('accepts the notes example with 201 and answers the documented example', async () => {
    const op = operation(document, 'createNotes');
    const res = await send(op, ofTenant(requestExamples(op).contract as object));
    expectDocumented(op, res);
    const [first, second] = responseExample(op, 201, 'created') as object[];
    expect(res.body).toEqual([{ ...first, created_at: expect.stringMatching(/Z$/) }, second]);
  });

  it('accepts the historical statements example with 201 and echoes it as documented', async () => {
    const op = operation(document, 'createHistoricalStatements');
    const res = await send(op, ofTenant(requestExamples(op).contract as object));
    expectDocumented(op, res);
    expect(res.body).toEqual(ofTenant(responseExample(op, 201, 'created') as object));
  });

  it('accepts the transactions example with 201, then reports every transaction as already added', async () => {
    const op = operation(document, 'createTransactions');
    const body = ofTenant(requestExamples(op).contract as object);
    const key = (op.operation.parameters ?? []).find((p) => p.name === 'Idempotency-Key')!.schema as {
      example: string;
    };
    const res = await send(op, body, { 'idempotency-key': key.example });
    expectDocumented(op, res);
    const added = responseExample(op, 201, 'added') as { results: object[] };
    expect(res.body).toEqual({
      results: added.results.map((r) => ({ ...r, added_transaction_id: expect.any(Number) as unknown })),
    });

    const again = await send(op, body);
    expectDocumented(op, again);
    expect(again.body).toEqual(responseExample(op, 201, 'alreadyAdded'));
  });

  it('accepts the payment-instruction example with 201 after asking the vendor', async () => {
    const op = operation(document, 'createPaymentInstruction');
    const res = await send(op, ofTenant(requestExamples(op).contract as object), {
      'idempotency-key': `pi-${uniqueSuffix()}`,
    });
    expectDocumented(op, res);
    expect(res.body).toEqual({
      ...(responseExample(op, 201, 'created') as object),
      platform_account_number: platformAccountNumber,
    });
    expect(
      fake.requests.filter((r) => r.path === `/v1/payment_methods/${ex.paymentInstructionRequest.reference}`),
    ).toHaveLength(1);
  });

  it('answers the status and list reads with the documented shapes', async () => {
    const status = operation(document, 'getAccountTransferStatus');
    const res = await send(status);
    expectDocumented(status, res);
    expect(res.body).toEqual({
      ...(responseExample(status, 200, 'completed') as object),
      platform_account_number: platformAccountNumber,
    });

    for (const id of [
      'listAllAccountImportProcesses',
      'listPendingAccountImportProcesses',
      'listImportedAccountImportProcesses',
    ]) {
      const op = operation(document, id);
      const list = await send(op);
      expectDocumented(op, list);
      expect(list.body).toEqual(
        id === 'listPendingAccountImportProcesses'
          ? []
          : [
              {
                external_account_number: ex.EXTERNAL_ACCOUNT,
                platform_account_number: platformAccountNumber,
                account_created_at: expect.any(String),
              },
            ],
      );
    }
  });

  it('signs in with both obtainToken examples', async () => {
    const op = operation(document, 'obtainToken');
    const examples = requestExamples(op) as Record<
      string,
      { query: string; variables: { input: Record<string, string> } }
    >;
    const signIn = await send(op, { ...examples.apiKey!, variables: { input: { APIKey: tenant.apiKey } } }, {}, '');
    expectDocumented(op, signIn);
    expect(signIn.body.data.obtainToken).toMatchObject({ token: expect.any(String), refreshToken: expect.any(String) });

    const renew = await send(
      op,
      { ...examples.refreshToken!, variables: { input: { refreshToken: signIn.body.data.obtainToken.refreshToken } } },
      {},
      '',
    );
    expectDocumented(op, renew);
    expect(renew.body.data.obtainToken.token).toEqual(expect.any(String));
  });

  it('answers health, readiness and metrics as documented', async () => {
    for (const id of ['getLiveness', 'getReadiness']) {
      const op = operation(document, id);
      expectDocumented(op, await send(op, undefined, {}, ''));
    }
    const metrics = operation(document, 'getMetrics');
    const res = await send(metrics, undefined, { authorization: `Bearer ${METRICS_TOKEN}` }, '');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expectDocumented(metrics, await send(metrics, undefined, {}, ''), 401);
  });

  it('answers failures with the documented error examples, word for word', async () => {
    const notes = operation(document, 'createNotes');
    const errorExample = (op: DocumentedOperation, status: number, code: string) => responseExample(op, status, code);
    const cases: [DocumentedOperation, number, string, Promise<Json>][] = [
      [notes, 400, 'invalid_input', send(notes, ofTenant({ ...ex.notesRequest, notes: [{}] }))],
      [
        operation(document, 'createHistoricalStatements'),
        400,
        'invalid_input',
        send(
          operation(document, 'createHistoricalStatements'),
          ofTenant({
            ...ex.statementsRequest,
            statements: [
              { ...ex.statementsRequest.statements[0], statement_id: 'x', bill_period_to_date: '2021-12-31' },
            ],
          }),
        ),
      ],
      [
        operation(document, 'createTransactions'),
        400,
        'invalid_input',
        send(operation(document, 'createTransactions'), ofTenant({ ...ex.transactionsRequest, transactions: [] })),
      ],
      [
        operation(document, 'createPaymentInstruction'),
        400,
        'invalid_input',
        send(
          operation(document, 'createPaymentInstruction'),
          ofTenant({ ...ex.paymentInstructionRequest, instruction_reference: 'X' }),
        ),
      ],
      [notes, 401, 'not_authenticated', send(notes, ex.notesRequest, {}, '')],
      [
        notes,
        404,
        'account_not_found',
        send(notes, ofTenant({ ...ex.notesRequest, external_account_number: 'NOT-THERE' })),
      ],
      [
        notes,
        415,
        'unsupported_media_type',
        request(app.baseUrl, 'POST', notes.path, {
          token: tenant.token,
          rawBody: '{}',
          headers: { 'content-type': 'text/plain' },
        }),
      ],
      [
        notes,
        400,
        'parse_error',
        request(app.baseUrl, 'POST', notes.path, {
          token: tenant.token,
          rawBody: '{',
          headers: { 'content-type': 'application/json' },
        }),
      ],
      [
        operation(document, 'obtainToken'),
        400,
        'notGraphQL',
        send(operation(document, 'obtainToken'), { variables: {} }, {}, ''),
      ],
      [
        operation(document, 'obtainToken'),
        200,
        'refused',
        send(operation(document, 'obtainToken'), ex.obtainTokenWithApiKey, {}, ''),
      ],
      [
        operation(document, 'listAllAccountImportProcesses'),
        404,
        'import_supplier_not_found',
        request(app.baseUrl, 'GET', '/v1/data-import/all-account-import-processes/NO_SUCH_SUPPLIER/', {
          token: tenant.token,
        }),
      ],
    ];
    for (const [op, status, code, answer] of cases) {
      const res = await answer;
      expectDocumented(op, res, status);
      expect([op.operation.operationId, res.body]).toEqual([op.operation.operationId, errorExample(op, status, code)]);
    }
  });
});
