// Refusals in the metrics and the request log: one route label for an endpoint's successes and its
// refusals (those made before the route too), refusals counted by code and supplier with bounded labels
// only, and every request line carrying the run id, the supplier and the error codes.
import { Writable } from 'node:stream';
import pino from 'pino';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { importAccount } from '../notes/notes.fixture';

const METRICS_TOKEN = 'metrics-token-for-tests-0123456789';
const NOTES = '/v1/data-import/notes/create/';
const ROUTE = `route="${NOTES}"`;

describe('refusals in the metrics and the request log', () => {
  let app: TestApp;
  let tenant: Tenant;
  const lines: Record<string, unknown>[] = [];
  const metrics = async () =>
    (await request(app.baseUrl, 'GET', '/metrics', { headers: { authorization: `Bearer ${METRICS_TOKEN}` } }))
      .body as string;
  const count = (text: string, series: RegExp) => Number(series.exec(text)?.[1] ?? 0);

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    app = await startTestApp({ METRICS_TOKEN }, { logger: pino({ level: 'info' }, sink) });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  it("labels an endpoint's successes and refusals (before the route or in it) with one route", async () => {
    const account = await importAccount(app, tenant);
    const body = { import_supplier: tenant.supplier, external_account_number: account.number, notes: [{ body: 'x' }] };
    expect((await request(app.baseUrl, 'POST', NOTES, { token: tenant.token, body })).status).toBe(201);
    expect((await request(app.baseUrl, 'POST', NOTES, { body })).status).toBe(401);
    const tooLarge = await request(app.baseUrl, 'POST', NOTES, {
      token: tenant.token,
      rawBody: 'x'.repeat(6 * 1024 * 1024),
      headers: { 'content-type': 'application/json' },
    });
    expect(tooLarge.status).toBe(413);
    const text = await metrics();
    for (const status of ['201', '401', '413']) {
      expect(text).toMatch(new RegExp(`http_requests_total\\{method="POST",${ROUTE},status="${status}"\\} [1-9]`));
    }
    expect(text).toMatch(
      new RegExp(`http_refusals_total\\{${ROUTE},code="not_authenticated",supplier="none"\\} [1-9]`),
    );
  });

  it('counts refusals by code and supplier, field errors by their own code, and never labels what a client made up', async () => {
    const runId = `run-${uniqueSuffix()}`;
    const madeUp = `NO_SUCH_SUPPLIER_${uniqueSuffix()}`;
    const refuse = (supplier: string) =>
      request(app.baseUrl, 'POST', NOTES, {
        token: tenant.token,
        body: { import_supplier: supplier, external_account_number: 'E-1', notes: [{ body: '' }, { body: '' }] },
        headers: { 'data-import-run-id': runId },
      });
    expect((await refuse(tenant.supplier)).status).toBe(400);
    expect((await refuse(madeUp)).status).toBe(400);
    const refusals = new RegExp(
      `http_refusals_total\\{${ROUTE},code="invalid_input",supplier="${tenant.supplier}"\\} (\\d+)`,
    );
    const fields = new RegExp(
      `http_refused_fields_total\\{${ROUTE},code="blank",supplier="${tenant.supplier}"\\} (\\d+)`,
    );
    const text = await until('the refusals counted', async () => {
      const t = await metrics();
      return count(t, refusals) >= 1 && t.includes('supplier="unknown"') ? t : undefined;
    });
    expect(count(text, fields)).toBe(2 * count(text, refusals));
    expect(text).toMatch(new RegExp(`http_refusals_total\\{${ROUTE},code="invalid_input",supplier="unknown"\\} [1-9]`));
    for (const unbounded of [madeUp, runId, 'E-1', tenant.report.organisations[0]!.name])
      expect(text).not.toContain(unbounded);
  });

  it('writes the run id, the supplier and the error codes on the request line', async () => {
    const runId = `logged-${uniqueSuffix()}`;
    const res = await request(app.baseUrl, 'POST', NOTES, {
      token: tenant.token,
      body: { import_supplier: tenant.supplier, external_account_number: 'E-2', notes: [{ body: '' }] },
      headers: { 'data-import-run-id': runId },
    });
    expect(res.status).toBe(400);
    const line = await until('the request line', () =>
      lines.find((l) => (l.req as { id?: string } | undefined)?.id === res.headers.get('x-request-id')),
    );
    expect(line).toMatchObject({
      runId,
      supplier: tenant.supplier,
      res: { status: 400, errorCode: 'invalid_input', fieldCodes: ['blank'] },
    });
  });
});
