// Replays of account creation, against the real API, workers, PostgreSQL and Redis: a v2 schedule sent
// again with its Idempotency-Key answers what it answered the first time, even after the account exists;
// a new schedule of an account already created answers account_import_process_already_imported with its
// number; a job redelivered after its work committed creates nothing more.
import { Queue } from 'bullmq';
import { accountProcessJob } from '../../shared/account-import/account-creation.job';
import { producerConnection } from '../../shared/platform/queues';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { account, applyCatalogue, importStatus, stageAccount } from './account.fixture';

describe('account creation replayed', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({}, { workers: true });
    await applyCatalogue(app);
  });
  afterAll(() => app.close());

  const external = () => `EXT-${uniqueSuffix()}`;
  const schedule = (t: Tenant, body: unknown, key?: string) =>
    request(app.baseUrl, 'POST', '/v2/data-import/accounts/', {
      token: t.token,
      body,
      headers: key ? { 'idempotency-key': key } : {},
    });
  const process = (t: Tenant, body: unknown, key: string) =>
    request(app.baseUrl, 'POST', '/v1/data-import/account-import-process/process/', {
      token: t.token,
      body,
      headers: { 'idempotency-key': key },
    });
  const accountsOf = async (supplier: string, number: string) =>
    (
      await app.db.pool.query<{ platform_account_number: string }>(
        `SELECT a.platform_account_number FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
        [supplier, number],
      )
    ).rows;
  const processed = (t: Tenant, number: string) =>
    until('PROCESSED', async () => {
      const res = await importStatus(app, t, t.supplier, number);
      return res.body.status === 'PROCESSED' ? res.body : undefined;
    });

  it('v2: the same Idempotency-Key after the account exists answers the first 201 again and changes nothing', async () => {
    const tenant = await createTenant(app);
    const number = external();
    const body = { payload: account(tenant.supplier, number) };
    const key = `key-${uniqueSuffix()}`;

    const first = await schedule(tenant, body, key);
    expect(first.status).toBe(201);
    const done = await processed(tenant, number);
    const events = await app.db.pool.query('SELECT count(*)::int AS n FROM account_import_process_events');

    const again = await schedule(tenant, body, key);

    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('location')).toBe(first.headers.get('location'));
    expect(await accountsOf(tenant.supplier, number)).toEqual([{ platform_account_number: done.platform_identifier }]);
    expect((await importStatus(app, tenant, tenant.supplier, number)).body.status).toBe('PROCESSED');
    const after = await app.db.pool.query('SELECT count(*)::int AS n FROM account_import_process_events');
    expect(after.rows[0].n).toBe(events.rows[0].n);
  });

  it('v2: the same key with another body is 422 idempotency_key_reused and stages nothing', async () => {
    const tenant = await createTenant(app);
    const key = `key-${uniqueSuffix()}`;
    const first = await schedule(tenant, { payload: account(tenant.supplier, external()) }, key);
    expect(first.status).toBe(201);

    const otherNumber = external();
    const other = await schedule(tenant, { payload: account(tenant.supplier, otherNumber) }, key);

    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({ code: 'idempotency_key_reused' });
    // Refused before anything: the other account is not even staged.
    expect((await importStatus(app, tenant, tenant.supplier, otherNumber)).status).toBe(404);
  });

  it('v2: a new schedule of an account already created answers account_import_process_already_imported with its number', async () => {
    const tenant = await createTenant(app);
    const number = external();
    const body = { payload: account(tenant.supplier, number) };
    expect((await schedule(tenant, body)).status).toBe(201);
    const done = await processed(tenant, number);

    const again = await schedule(tenant, body, `key-${uniqueSuffix()}`);

    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      code: 'account_import_process_already_imported',
      external_account_number: number,
      platform_account_number: done.platform_identifier,
    });
    expect(await accountsOf(tenant.supplier, number)).toHaveLength(1);
  });

  it('v1: a job redelivered after its work committed creates nothing more and keeps its answer', async () => {
    const tenant = await createTenant(app);
    const number = external();
    await stageAccount(app, tenant, account(tenant.supplier, number));
    const key = `key-${uniqueSuffix()}`;
    const res = await process(tenant, { import_supplier_code: tenant.supplier, external_account_number: number }, key);
    expect(res.status).toBe(201);
    const { rows } = await app.db.pool.query<{ id: string; body: unknown }>(
      'SELECT id, body FROM request_results WHERE endpoint = $1 AND idempotency_key = $2',
      [accountProcessJob.endpoint, key],
    );
    expect(rows).toHaveLength(1);

    // As BullMQ redelivers a job whose worker died after committing: the same data, run again.
    const queue = new Queue(accountProcessJob.queue, {
      connection: producerConnection(app.config),
      prefix: app.config.QUEUE_PREFIX,
    });
    try {
      const original = (await queue.getJob(rows[0]!.id))!;
      const again = await queue.add(accountProcessJob.name, original.data, { jobId: `${rows[0]!.id}-again` });
      await until('the redelivered job to finish', async () => ((await again.isCompleted()) ? true : undefined));
    } finally {
      await queue.close();
    }

    expect(await accountsOf(tenant.supplier, number)).toEqual([
      { platform_account_number: res.body.platform_account_number },
    ]);
    const stored = await app.db.pool.query('SELECT body FROM request_results WHERE id = $1', [rows[0]!.id]);
    expect(stored.rows[0].body).toEqual(rows[0]!.body);
  });
});
