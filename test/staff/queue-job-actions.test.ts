// What the dashboard's actions do to queued requests, against the real API, PostgreSQL and Redis:
// removing a scheduled account creation cancels it (process CANCELLED with its event, the request
// answered), retrying a failed job reopens its stored "retry as it is" answer so the job runs its work
// again, and a queued job carries the client's run id for the dashboard to show.
import { Worker, type Job } from 'bullmq';
import { accountScheduleJob } from '../../shared/account-import/account-creation.job';
import { cancelAccountCreation } from '../../shared/account-import/account-creation.use-cases';
import { blockingConnection } from '../../shared/platform/queues';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { account, applyCatalogue } from '../account-import/account.fixture';
import { createTenant, request, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { signedIn, type StaffClient, startStaffApp, type StaffTestApp } from './staff-app';

const BOARD_API = '/admin/queues/api/queues';

describe('dashboard actions on queued requests', () => {
  let app: StaffTestApp;
  let operator: StaffClient;
  let tenant: Tenant;
  beforeAll(async () => {
    app = await startStaffApp();
    await applyCatalogue(app.asTestApp());
    operator = (await signedIn(app, 'operator')).client;
    tenant = await createTenant(app.asTestApp());
  });
  afterAll(() => app.close());

  async function xsrf(): Promise<Record<string, string>> {
    await operator.get('/admin/queues');
    return { 'x-xsrf-token': decodeURIComponent(operator.cookies.get('XSRF-TOKEN')!) };
  }
  /** A v2 schedule whose window starts in an hour: its job waits, delayed, in the accounts queue. */
  async function scheduled(headers: Record<string, string> = {}) {
    const t = await createTenant(app.asTestApp());
    const number = `EXT-${uniqueSuffix()}`;
    const start = new Date(Date.now() + 3600_000).toISOString();
    const res = await request(app.baseUrl, 'POST', '/v2/data-import/accounts/', {
      token: t.token,
      headers,
      body: { payload: account(t.supplier, number), task_params: { schedule_window_start: start } },
    });
    expect(res.status).toBe(201);
    return { t, number, requestId: res.body.request_id as string };
  }
  const processOf = async (supplier: string, number: string) =>
    (
      await app.db.pool.query<{ status: string; events: string[] }>(
        `SELECT p.status::text AS status, array_agg(e.event ORDER BY e.id) AS events
           FROM account_import_processes p JOIN account_import_process_events e ON e.process_id = p.id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2 GROUP BY p.id`,
        [supplier, number],
      )
    ).rows[0];
  const resultOf = async (id: string) =>
    (
      await app.db.pool.query<{ http_status: number | null; error_code: string | null }>(
        'SELECT http_status, error_code FROM request_results WHERE id = $1',
        [id],
      )
    ).rows[0];

  it('removing a scheduled account creation cancels it: CANCELLED with its event, the request answered, the job gone', async () => {
    const { t, number, requestId } = await scheduled();
    const queue = app.queues.queue(accountScheduleJob.queue);
    expect(await (await queue.getJob(requestId))!.getState()).toBe('delayed');

    const res = await operator.send('PUT', `${BOARD_API}/${accountScheduleJob.queue}/${requestId}/clean`, {
      headers: await xsrf(),
    });

    expect(res.status).toBe(204);
    expect(await processOf(t.supplier, number)).toMatchObject({
      status: 'CANCELLED',
      events: expect.arrayContaining(['EVENT_ACCOUNT_IMPORT_PROCESS_CANCELLED']),
    });
    expect(await resultOf(requestId)).toEqual({ http_status: 400, error_code: 'account_import_process_cancelled' });
    expect(await queue.getJob(requestId)).toBeUndefined();
  });

  it('does not remove a scheduled creation that is no longer PENDING (409), so its request keeps its job', async () => {
    const { t, number, requestId } = await scheduled();
    expect(await cancelAccountCreation(app.db, t.supplier, number, new Date())).toEqual({ cancelled: true });

    const res = await operator.send('PUT', `${BOARD_API}/${accountScheduleJob.queue}/${requestId}/clean`, {
      headers: await xsrf(),
    });

    expect(res.status).toBe(409);
    expect(JSON.parse(res.text).code).toBe('account_creation_not_pending');
    expect(await app.queues.queue(accountScheduleJob.queue).getJob(requestId)).toBeDefined();
  });

  /** A failed transactions job whose request row holds `status` as its answer. */
  async function failedWithAnswer(status: number): Promise<Job> {
    const id = `00000000-0000-4000-8000-${uniqueSuffix()
      .toLowerCase()
      .replace(/[^0-9a-f]/g, '0')
      .padStart(12, '0')
      .slice(-12)}`;
    const { rows } = await app.db.pool.query<{ organisation_id: number }>(
      'SELECT organisation_id FROM organisation_suppliers WHERE supplier_code = $1',
      [tenant.supplier],
    );
    await app.db.pool.query(
      `INSERT INTO request_results (id, organisation_id, endpoint, body_hash, http_status, body, finished_at, error_code)
       VALUES ($1, $2, $3, 'h', $4, '{}'::jsonb, now(), 'x')`,
      [id, rows[0]!.organisation_id, transactionImportJob.endpoint, status],
    );
    const queue = app.queues.queue(transactionImportJob.queue);
    const job = await queue.add(
      transactionImportJob.name,
      { resultId: id, organisationId: rows[0]!.organisation_id, accountId: 1, payload: {} },
      { jobId: id, attempts: 1 },
    );
    const worker = new Worker(
      transactionImportJob.queue,
      async () => {
        throw new Error('boom');
      },
      { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX },
    );
    await new Promise<void>((resolve) => worker.on('failed', (j) => j?.id === id && resolve()));
    await worker.close();
    return job;
  }

  it("retrying a failed job reopens its request's stored 5xx answer (so the job runs its work), never a final one", async () => {
    const spent = await failedWithAnswer(500);
    const refused = await failedWithAnswer(400);
    const headers = await xsrf();

    const one = await operator.send('PUT', `${BOARD_API}/${transactionImportJob.queue}/${spent.id}/retry`, { headers });
    const other = await operator.send('PUT', `${BOARD_API}/${transactionImportJob.queue}/${refused.id}/retry`, {
      headers,
    });

    expect([one.status, other.status]).toEqual([204, 204]);
    expect(await resultOf(spent.id!)).toEqual({ http_status: null, error_code: 'x' });
    expect((await resultOf(refused.id!))?.http_status).toBe(400);
    expect(await spent.getState()).toBe('waiting');
  });

  it('"Retry all" reopens every failed job\'s 5xx answer too', async () => {
    const spent = await failedWithAnswer(500);
    const res = await operator.send('PUT', `${BOARD_API}/${transactionImportJob.queue}/retry/failed`, {
      headers: await xsrf(),
    });
    expect(res.status).toBe(200);
    expect((await resultOf(spent.id!))?.http_status).toBeNull();
  });

  it('a queued job carries the run id the client sent, which the dashboard shows', async () => {
    const runId = `run-${uniqueSuffix()}`;
    const { requestId } = await scheduled({ 'data-import-run-id': runId });
    const job = await app.queues.queue(accountScheduleJob.queue).getJob(requestId);
    expect(job!.data.runId).toBe(runId);
    const shown = await operator.get(`${BOARD_API}/${accountScheduleJob.queue}/${requestId}`);
    expect(JSON.parse(shown.text).job.data.runId).toBe(runId);
  });
});
