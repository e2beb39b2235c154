import { Writable } from 'node:stream';
import pino from 'pino';

import { createTenant, startTestApp, type TestApp } from '../helpers/app';
import { importedAccount, payment, postTransactions, envelope } from '../transactions/transactions.fixture';
import { purgeAnswersJob } from '../../shared/requests/purge-answers.job';

describe('job log lines', () => {
  let app: TestApp;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    app = await startTestApp({ DIRECT_COMMIT: 'off' }, { workers: true, logger: pino({ level: 'info' }, sink) });
  });
  afterAll(() => app.close());

  it("carry the request id of the request that queued the job (ours, not the client's), and one line per request", async () => {
    const tenant = await createTenant(app);
    const account = await importedAccount(app, tenant);
    const res = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('traced-1')]), {
      headers: { 'x-request-id': 'migration-batch-17' },
    });
    expect(res.status).toBe(201);
    // The workers' scheduled purge logs its own job lines: only the request's jobs matter here.
    const jobLines = lines.filter((l) => l.msg === 'job completed' && l.queue !== purgeAnswersJob.queue);
    const ours = res.headers.get('x-request-id');
    expect(ours).toMatch(/^[0-9a-f-]{36}$/);
    expect(jobLines).toEqual([expect.objectContaining({ queue: 'transactions', httpRequestId: ours })]);
    const requestLines = lines.filter((l) => (l.req as { id?: string } | undefined)?.id === ours);
    expect(requestLines).toEqual([
      expect.objectContaining({ req: expect.objectContaining({ client_request_id: 'migration-batch-17' }) }),
    ]);
    expect(JSON.stringify(lines)).not.toContain(tenant.token);
  });

  it('write one line per request: its method, path without the query, status, refusal codes, organisation and supplier', async () => {
    const tenant = await createTenant(app);
    const account = await importedAccount(app, tenant);
    const refused = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [{ ...payment('logged-1'), amount: 'not a number' }]),
      { query: 'check_previously_added=false', headers: { 'x-request-id': 'refused-batch-3' } },
    );
    expect(refused.status).toBe(400);
    const requestLines = lines.filter(
      (l) => (l.req as { id?: string } | undefined)?.id === refused.headers.get('x-request-id'),
    );
    expect(requestLines).toEqual([
      expect.objectContaining({
        level: 30,
        req: {
          id: refused.headers.get('x-request-id'),
          client_request_id: 'refused-batch-3',
          method: 'POST',
          path: '/v1/data-import/transactions/create/',
        },
        organisation: expect.any(Number),
        supplier: tenant.supplier,
        // The request's code and its field errors' own codes.
        res: { status: 400, errorCode: 'transaction_import_error', fieldCodes: ['invalid'] },
        responseTime: expect.any(Number),
        msg: 'POST 400',
      }),
    ]);
  });
});
