import { Worker, type Job } from 'bullmq';
import { blockingConnection } from '../../shared/platform/queues';
import { REDACTED } from '../../shared/staff/job-redaction';
import { signedIn, StaffClient, startStaffApp, type StaffTestApp } from './staff-app';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';
import { transactionImportJob } from '../../shared/transactions/transaction.job';

const QUEUE = transactionImportJob.queue;
const API = `/admin/queues/api/queues/${QUEUE}`;

const JOB_DATA = {
  resultId: 'req-1',
  httpRequestId: 'trace-1',
  organisationId: 7,
  accountId: 42,
  payload: {
    import_supplier: 'SUPPLIER_A',
    external_account_number: 'EXT-9',
    idempotencyKey: 'client-chosen-key',
    transactions: [
      {
        transaction_id: 'T-1',
        transaction_date: '2026-01-02',
        amount: '12.50',
        type: 'PAYMENT',
        reference: 'bank-ref-123',
        note: 'Customer called about arrears',
        display_note: 'Thanks for your payment',
      },
    ],
  },
};

describe('queue dashboard at /admin/queues', () => {
  let app: StaffTestApp;
  let operator: StaffClient;
  let support: StaffClient;

  beforeAll(async () => {
    app = await startStaffApp();
    operator = (await signedIn(app, 'operator')).client;
    support = (await signedIn(app, 'support')).client;
  });
  afterAll(() => app.close());

  /** A job of the transactions queue that failed its only attempt. */
  async function failedJob(): Promise<Job> {
    const queue = app.queues.queue(transactionImportJob.queue);
    const job = await queue.add(transactionImportJob.name, JOB_DATA, { attempts: 1 });
    const worker = new Worker(
      QUEUE,
      async () => {
        throw new Error('boom');
      },
      { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX },
    );
    await new Promise<void>((resolve) => worker.on('failed', (j) => j?.id === job.id && resolve()));
    await worker.close();
    return job;
  }

  /** Loads the board page, as the browser does, so the dashboard's XSRF-TOKEN cookie is set. */
  async function xsrf(client: StaffClient): Promise<Record<string, string>> {
    await client.get('/admin/queues');
    return { 'x-xsrf-token': decodeURIComponent(client.cookies.get('XSRF-TOKEN')!) };
  }

  const stateOf = async (job: Job) => (await app.queues.queue(transactionImportJob.queue).getJob(job.id!))?.getState();

  it('serves the dashboard page and its assets from the package, under a CSP that lets no CDN in', async () => {
    const page = await operator.get('/admin/queues');
    expect(page.status).toBe(200);
    expect(page.text).toContain('<base href="/admin/queues/"');
    expect(page.headers.get('x-powered-by')).toBeNull();
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/font-src 'self' data:/);
    expect(csp).toMatch(/style-src 'self' 'unsafe-inline'/);
    expect(csp).not.toMatch(/https:/);
    const script = /src="(static\/js\/main\.[^"]+\.js)"/.exec(page.text)![1]!;
    const asset = await operator.get(`/admin/queues/${script}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/javascript/);
    const cookie = page.headers.getSetCookie().find((c) => c.startsWith('XSRF-TOKEN='))!;
    expect(cookie).toMatch(/Path=\/admin\/queues/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/HttpOnly/);
  });

  it('lists every queue of the job catalog; read-only for support staff', async () => {
    const names = [...REQUEST_QUEUES].sort();
    const forOperator = JSON.parse((await operator.get('/admin/queues/api/queues')).text);
    expect(forOperator.queues.map((q: { name: string }) => q.name).sort()).toEqual(names);
    expect(forOperator.queues.every((q: { readOnlyMode: boolean }) => !q.readOnlyMode)).toBe(true);
    const forSupport = JSON.parse((await support.get('/admin/queues/api/queues')).text);
    expect(forSupport.queues.map((q: { name: string }) => q.name).sort()).toEqual(names);
    expect(forSupport.queues.every((q: { readOnlyMode: boolean }) => q.readOnlyMode)).toBe(true);
  });

  it('shows job data with ids, types, dates and amounts but without notes, references or keys', async () => {
    const job = await failedJob();
    for (const client of [operator, support]) {
      const res = await client.get(`${API}/${job.id}`);
      expect(res.status).toBe(200);
      const shown = JSON.parse(res.text).job;
      expect(shown.data).toEqual({
        resultId: 'req-1',
        httpRequestId: 'trace-1',
        organisationId: 7,
        accountId: 42,
        payload: {
          import_supplier: 'SUPPLIER_A',
          external_account_number: 'EXT-9',
          idempotencyKey: REDACTED,
          transactions: [
            {
              transaction_id: 'T-1',
              transaction_date: '2026-01-02',
              amount: '12.50',
              type: 'PAYMENT',
              reference: REDACTED,
              note: REDACTED,
              display_note: REDACTED,
            },
          ],
        },
      });
      expect(res.text).not.toContain('arrears');
      const list = await client.get(
        `/admin/queues/api/queues?activeQueue=${QUEUE}&status=failed&page=1&jobsPerPage=50`,
      );
      expect(list.text).toContain('T-1');
      expect(list.text).not.toContain('bank-ref-123');
    }
  });

  it('refuses support staff a retry or a clean with 403, even with a valid CSRF token', async () => {
    const job = await failedJob();
    const headers = await xsrf(support);
    const retry = await support.send('PUT', `${API}/${job.id}/retry`, { headers });
    expect(retry.status).toBe(403);
    expect(JSON.parse(retry.text)).toEqual({ detail: expect.any(String), code: 'staff_role_forbidden' });
    const clean = await support.send('PUT', `${API}/clean/failed`, { headers });
    expect(clean.status).toBe(403);
    expect(await stateOf(job)).toBe('failed');
  });

  it('refuses an operator action without the CSRF header', async () => {
    const job = await failedJob();
    const res = await operator.send('PUT', `${API}/${job.id}/retry`);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).code).toBe('csrf_failed');
    const wrong = await operator.send('PUT', `${API}/${job.id}/retry`, { headers: { 'x-xsrf-token': 'guess' } });
    expect(wrong.status).toBe(403);
    expect(await stateOf(job)).toBe('failed');
  });

  it('lets an operator retry a failed job and remove one', async () => {
    const headers = await xsrf(operator);
    const retried = await failedJob();
    const retry = await operator.send('PUT', `${API}/${retried.id}/retry`, { headers });
    expect(retry.status).toBe(204);
    expect(await stateOf(retried)).toBe('waiting');

    const cleaned = await failedJob();
    const clean = await operator.send('PUT', `${API}/${cleaned.id}/clean`, { headers });
    expect(clean.status).toBe(204);
    expect(await stateOf(cleaned)).toBeUndefined();
  });

  it('refuses everyone the dashboard writes that would orphan or alter queued requests', async () => {
    const headers = await xsrf(operator);
    const job = await failedJob();
    const attempts = [
      operator.send('POST', `${API}/add`, { headers, json: { name: 'x', data: {} } }),
      operator.send('PUT', `${API}/empty`, { headers }),
      operator.send('PUT', `${API}/obliterate`, { headers, json: {} }),
      operator.send('PATCH', `${API}/${job.id}/update-data`, { headers, json: { data: {} } }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(403);
      expect(JSON.parse(res.text).code).toBe('staff_action_forbidden');
    }
    expect(await stateOf(job)).toBe('failed');
  });
});
