// Creating accounts through the queue, against the real API, workers, PostgreSQL and Redis: the v1
// process call (the request waits for the account), the v2 schedule (a delayed job for its window),
// dry runs, cancellation, windows that pass, and exactly one account when creations race.
import { Queue } from 'bullmq';
import { cancelAccountCreation } from '../../shared/account-import/account-creation.use-cases';
import { accountScheduleJob } from '../../shared/account-import/account-creation.job';
import { producerConnection } from '../../shared/platform/queues';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { runAdmin } from '../helpers/admin-cli';
import { account, applyCatalogue, importStatus, stageAccount } from './account.fixture';

describe('account creation through the queue', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, { workers: true });
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  const external = () => `EXT-${uniqueSuffix()}`;
  /** A v2 schedule whose window starts in an hour: its job waits in BullMQ until a test promotes it. */
  const scheduleInAnHour = (tenant: Tenant, number: string) =>
    schedule(app, tenant, {
      payload: account(tenant.supplier, number),
      task_params: { schedule_window_start: new Date(Date.now() + 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z') },
    });
  const withScheduleQueue = async (use: (queue: Queue) => Promise<unknown>) => {
    const queue = new Queue(accountScheduleJob.queue, {
      connection: producerConnection(app.config),
      prefix: app.config.QUEUE_PREFIX,
    });
    try {
      await use(queue);
    } finally {
      await queue.close();
    }
  };
  const process = (a: TestApp, t: Tenant, body: unknown) =>
    request(a.baseUrl, 'POST', '/v1/data-import/account-import-process/process/', { token: t.token, body });
  const schedule = (a: TestApp, t: Tenant, body: unknown) =>
    request(a.baseUrl, 'POST', '/v2/data-import/accounts/', { token: t.token, body });
  const accountsOf = async (supplier: string, number: string) =>
    (
      await app.db.pool.query<{ platform_account_number: string }>(
        `SELECT a.platform_account_number FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
        [supplier, number],
      )
    ).rows;
  const finalStatus = (a: TestApp, t: Tenant, number: string) =>
    until('a final status', async () => {
      const res = await importStatus(a, t, t.supplier, number);
      return ['PENDING', 'IN_PROGRESS'].includes(res.body.status as string) ? undefined : res.body;
    });

  it('v1: a staged account is created by the process call, which answers its number; every endpoint then works on it', async () => {
    const tenant = await createTenant(app);
    const number = external();
    expect((await stageAccount(app, tenant, account(tenant.supplier, number))).status).toBe(201);

    const res = await process(app, tenant, { import_supplier_code: tenant.supplier, external_account_number: number });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      external_account_number: number,
      platform_account_number: expect.stringMatching(/^A-/),
    });
    expect(await accountsOf(tenant.supplier, number)).toEqual([
      { platform_account_number: res.body.platform_account_number },
    ]);
    const v1 = await request(
      app.baseUrl,
      'GET',
      `/v1/data-import/account-transfer-status/${tenant.supplier}/${number}/`,
      { token: tenant.token },
    );
    expect(v1.body).toMatchObject({ status: 'COMPLETED', platform_account_number: res.body.platform_account_number });
    const v2 = await importStatus(app, tenant, tenant.supplier, number);
    expect(v2.body).toMatchObject({ status: 'PROCESSED', platform_identifier: res.body.platform_account_number });
    const note = await request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
      token: tenant.token,
      body: { import_supplier: tenant.supplier, external_account_number: number, notes: [{ body: 'After creation.' }] },
    });
    expect(note.status).toBe(201);

    const again = await process(app, tenant, {
      import_supplier_code: tenant.supplier,
      external_account_number: number,
    });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'account_import_process_already_imported',
      platform_account_number: res.body.platform_account_number,
    });
  });

  it('v1: two process calls and a v2 schedule racing for one account create exactly one', async () => {
    const tenant = await createTenant(app);
    const number = external();
    const body = account(tenant.supplier, number);
    await stageAccount(app, tenant, body);
    const call = { import_supplier_code: tenant.supplier, external_account_number: number };

    const answers = await Promise.all([
      process(app, tenant, call),
      process(app, tenant, call),
      schedule(app, tenant, { payload: body }),
    ]);

    const created = answers.slice(0, 2).filter((r) => r.status === 201);
    expect(created.length).toBeLessThanOrEqual(1);
    await finalStatus(app, tenant, number);
    expect(await accountsOf(tenant.supplier, number)).toHaveLength(1);
  });

  it('v1: a process call for nothing staged is 400 import_process_does_not_exist and queues nothing; bad bodies are 400', async () => {
    const tenant = await createTenant(app);
    const missing = await process(app, tenant, {
      import_supplier_code: tenant.supplier,
      external_account_number: external(),
    });
    expect(missing.status).toBe(400);
    expect(missing.body.code).toBe('import_process_does_not_exist');
    const bad = await process(app, tenant, { import_supplier_code: tenant.supplier, surprise: 1 });
    expect(bad.status).toBe(400);
  });

  it('v2: a schedule answers 201 at once with the status as Location, and the job creates the account', async () => {
    const tenant = await createTenant(app);
    const number = external();

    const res = await schedule(app, tenant, { payload: account(tenant.supplier, number) });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ status: 'PENDING', external_identifier: number, is_dry_run: false });
    expect(res.headers.get('location')).toBe(`/v2/data-import/accounts/${tenant.supplier}/${number}/`);
    const final = await finalStatus(app, tenant, number);
    expect(final).toMatchObject({ status: 'PROCESSED', latest_error: null });
    expect(await accountsOf(tenant.supplier, number)).toEqual([{ platform_account_number: final.platform_identifier }]);
  });

  it('v2: a dry run does everything, answers on its request, and keeps nothing (no account, no process)', async () => {
    const tenant = await createTenant(app);
    const number = external();

    const res = await schedule(app, tenant, {
      payload: account(tenant.supplier, number),
      task_params: { is_dry_run: true },
    });

    expect(res.status).toBe(201);
    const answer = await until('the dry run answered', async () => {
      const r = await request(app.baseUrl, 'GET', `/v1/data-import/requests/${res.body.request_id as string}/`, {
        token: tenant.token,
      });
      return r.status === 503 ? undefined : r;
    });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual({ external_account_number: number, dry_run: true });
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
    expect((await importStatus(app, tenant, tenant.supplier, number)).status).toBe(404);
  });

  it('v2: a window ending more than 4 days ahead is refused and nothing is staged', async () => {
    const tenant = await createTenant(app);
    const number = external();
    const end = new Date(Date.now() + 5 * 24 * 3600 * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

    const res = await schedule(app, tenant, {
      payload: account(tenant.supplier, number),
      task_params: { schedule_window_end: end },
    });

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        attr: 'task_params.schedule_window_end',
        code: 'schedule_window_end_too_far_in_future',
      }),
    ]);
    expect((await importStatus(app, tenant, tenant.supplier, number)).status).toBe(404);
  });

  it('v2: an operator cancels a PENDING creation; when its job runs it creates nothing', async () => {
    const tenant = await createTenant(app);
    const number = external();
    const res = await scheduleInAnHour(tenant, number);
    expect((await importStatus(app, tenant, tenant.supplier, number)).body.status).toBe('PENDING');

    const cancel = await runAdmin(['accounts', 'cancel', tenant.supplier, number], {
      databaseUrl: app.config.DATABASE_URL,
    });
    expect(cancel).toMatchObject({ code: 0, json: { cancelled: true } });
    // The job would wait an hour: start it now.
    await withScheduleQueue(async (queue) => (await queue.getJob(res.body.request_id as string))!.promote());
    await until('the job to finish', async () => {
      const row = await app.db.pool.query('SELECT http_status FROM request_results WHERE id = $1', [
        res.body.request_id,
      ]);
      return row.rows[0]?.http_status ?? undefined;
    });

    expect((await importStatus(app, tenant, tenant.supplier, number)).body.status).toBe('CANCELLED');
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
    expect(await cancelAccountCreation(app.db, tenant.supplier, number, new Date())).toEqual({ cancelled: false });
  });

  it('v2: a window that passes before a worker starts the job ends the process ERRORED with schedule_window_passed', async () => {
    const tenant = await createTenant(app);
    const number = external();
    const res = await scheduleInAnHour(tenant, number);
    expect(res.status).toBe(201);

    // As if no worker took the job before its window ended: the end is now behind it, and it starts now.
    await withScheduleQueue(async (queue) => {
      const job = (await queue.getJob(res.body.request_id as string))!;
      const passed = new Date(Date.now() - 1000).toISOString();
      await job.updateData({ ...job.data, payload: { ...job.data.payload, window_end: passed } });
      await job.promote();
    });

    const final = await finalStatus(app, tenant, number);
    expect(final).toMatchObject({ status: 'ERRORED', latest_error: { code: 'schedule_window_passed' } });
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
  });
});
