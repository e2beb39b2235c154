// Every path of an account's creation ends in a final state (docs/account-import.md, "The process's
// life"): a vendor refusal, a redelivered or retried job, two schedules of one account at once, a
// re-schedule, a dry run, a crashed worker's hold, and the bounds on one account and one organisation.
// Against the real API, workers, PostgreSQL and Redis, with the local Stripe fake.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { accountScheduleJob } from '../../shared/account-import/account-creation.job';
import { insertProcess } from '../../shared/account-import/account-import.repository';
import { markCreationStarted } from '../../shared/account-import/create-account';
import { prepareSchedule } from '../../shared/account-import/creation-status.repository';
import { releaseAbandonedHolds } from '../../shared/account-import/release-holds.job';
import { producerConnection } from '../../shared/platform/queues';
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { createTenant, request, type Tenant } from '../helpers/app';
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = Record<string, any>;
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import {
  card,
  startInstructionsWorld,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';
import { account, applyCatalogue, importStatus, stageAccount } from './account.fixture';

describe('the account import process ends final on every path', () => {
  let world: InstructionsWorld;
  beforeAll(async () => {
    resetVendorBreakers();
    world = await startInstructionsWorld(15_000, { overrides: { VENDOR_TIMEOUT_MS: '3000' } });
    await applyCatalogue(world.app);
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  const app = () => world.app;
  const external = () => `EXT-${uniqueSuffix()}`;
  const post = (t: Tenant, path: string, body: unknown) =>
    request(app().baseUrl, 'POST', path, { token: t.token, body });
  const processCall = (t: Tenant, number: string, extra: Body = {}) =>
    post(t, '/v1/data-import/account-import-process/process/', {
      import_supplier_code: t.supplier,
      external_account_number: number,
      ...extra,
    });
  const schedule = (t: Tenant, body: unknown) => post(t, '/v2/data-import/accounts/', body);
  const v1Status = async (t: Tenant, number: string) =>
    (
      await request(app().baseUrl, 'GET', `/v1/data-import/account-transfer-status/${t.supplier}/${number}/`, {
        token: t.token,
      })
    ).body.status as string;
  const answerOf = (t: Tenant, requestId: string) =>
    until(`request ${requestId} answered`, async () => {
      const r = await request(app().baseUrl, 'GET', `/v1/data-import/requests/${requestId}/`, { token: t.token });
      return r.status === 503 ? undefined : r;
    });
  const finalStatus = (t: Tenant, number: string) =>
    until('a final status', async () => {
      const res = await importStatus(app(), t, t.supplier, number);
      return ['PENDING', 'IN_PROGRESS'].includes(res.body.status as string) ? undefined : res.body;
    });
  const accountsOf = async (supplier: string, number: string) =>
    (
      await app().db.pool.query<{ n: string }>(
        `SELECT a.platform_account_number AS n FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
        [supplier, number],
      )
    ).rows.map((r) => r.n);
  const eventsOf = async (supplier: string, number: string) =>
    (
      await app().db.pool.query<{ event: string }>(
        `SELECT e.event FROM account_import_process_events e JOIN account_import_processes p ON p.id = e.process_id
          WHERE p.supplier_code = $1 AND p.external_account_number = $2 ORDER BY e.id`,
        [supplier, number],
      )
    ).rows.map((r) => r.event);
  const withQueue = async <T>(use: (queue: Queue) => Promise<T>): Promise<T> => {
    const queue = new Queue(accountScheduleJob.queue, {
      connection: producerConnection(app().config),
      prefix: app().config.QUEUE_PREFIX,
    });
    try {
      return await use(queue);
    } finally {
      await queue.close();
    }
  };
  const inAnHour = () => new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');

  it('v1: a card the vendor refuses ends the process ERRORED, its error at the item, UNKNOWN on v1', async () => {
    const tenant = await createTenant(app());
    const number = external();
    const body = { ...account(tenant.supplier, number), payment_instructions: [card(`pm_${uniqueSuffix()}`)] };
    expect((await stageAccount(app(), tenant, body)).status).toBe(201);

    const res = await processCall(tenant, number);

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        attr: 'payment_instructions.0.reference',
        code: 'payment_instruction_not_found_at_vendor',
      }),
    ]);
    expect(await v1Status(tenant, number)).toBe('UNKNOWN');
    const v2 = (await importStatus(app(), tenant, tenant.supplier, number)).body;
    expect(v2).toMatchObject({
      status: 'ERRORED',
      latest_error: {
        code: 'payment_instruction_not_found_at_vendor',
        attr: 'payment_instructions.0.reference',
        request_id: expect.any(String),
      },
      latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED' },
    });
    expect(await accountsOf(tenant.supplier, number)).toEqual([]);
  });

  it('v1 dry run: a vendor refusal answers at the item and leaves the process as it was', async () => {
    const tenant = await createTenant(app());
    const number = external();
    const body = { ...account(tenant.supplier, number), payment_instructions: [card(`pm_${uniqueSuffix()}`)] };
    await stageAccount(app(), tenant, body);
    const before = await eventsOf(tenant.supplier, number);

    const res = await processCall(tenant, number, { dry_run: true });

    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ attr: 'payment_instructions.0.reference' });
    expect((await importStatus(app(), tenant, tenant.supplier, number)).body.status).toBe('PENDING');
    expect(await eventsOf(tenant.supplier, number)).toEqual(before);
  });

  it('v2: a vendor refusal ends the schedule ERRORED, never IN_PROGRESS', async () => {
    const tenant = await createTenant(app());
    const number = external();
    const body = { ...account(tenant.supplier, number), payment_instructions: [card(`pm_${uniqueSuffix()}`)] };

    expect((await schedule(tenant, { payload: body })).status).toBe(201);

    expect(await finalStatus(tenant, number)).toMatchObject({
      status: 'ERRORED',
      latest_error: { attr: 'payment_instructions.0.reference' },
    });
    expect(await v1Status(tenant, number)).toBe('UNKNOWN');
  });

  it('a finished creation job retried (the dashboard) or redelivered changes nothing', async () => {
    const tenant = await createTenant(app());
    const number = external();
    const res = await schedule(tenant, { payload: account(tenant.supplier, number) });
    expect(await finalStatus(tenant, number)).toMatchObject({ status: 'PROCESSED' });
    const events = await eventsOf(tenant.supplier, number);
    const requestId = res.body.request_id as string;

    await withQueue(async (queue) => {
      const job = (await queue.getJob(requestId))!;
      const finishedOn = job.finishedOn;
      await job.retry('completed');
      await until('the retried job finished again', async () => {
        const again = await queue.getJob(requestId);
        return again?.finishedOn !== undefined && again.finishedOn !== finishedOn ? true : undefined;
      });
    });

    expect(await v1Status(tenant, number)).toBe('COMPLETED');
    expect((await importStatus(app(), tenant, tenant.supplier, number)).body.status).toBe('PROCESSED');
    expect(await eventsOf(tenant.supplier, number)).toEqual(events);
    expect(await accountsOf(tenant.supplier, number)).toHaveLength(1);
  });

  it('two schedules of one account at once (a repeated line): one creates, neither moves the process back', async () => {
    // A tenant per account: the fixture's meter points are the same in every account.
    const cases = await Promise.all(
      Array.from({ length: 6 }, async () => ({ tenant: await createTenant(app()), number: external() })),
    );

    const answers = await Promise.all(
      cases.flatMap(({ tenant, number }) =>
        [0, 1].map(async () => ({
          tenant,
          number,
          res: await schedule(tenant, { payload: account(tenant.supplier, number) }),
        })),
      ),
    );

    // Each is scheduled, or answered that the account exists already (the other's job was that quick).
    for (const { res } of answers) {
      if (res.status !== 201) expect(res.body).toMatchObject({ code: 'account_import_process_already_imported' });
    }
    for (const { tenant, number } of cases) {
      const final = await finalStatus(tenant, number);
      expect(final).toMatchObject({ status: 'PROCESSED', latest_error: null });
      expect(await accountsOf(tenant.supplier, number)).toEqual([final.platform_identifier]);
      expect(await v1Status(tenant, number)).toBe('COMPLETED');
      const pending = await request(
        app().baseUrl,
        'GET',
        `/v1/data-import/pending-account-import-processes/${tenant.supplier}/`,
        { token: tenant.token },
      );
      expect(pending.body).toEqual([]);
    }
    // Each request answers the account's creation or that a later schedule replaced it; none another number.
    for (const { tenant, number, res } of answers.filter((a) => a.res.status === 201)) {
      const answer = await answerOf(tenant, res.body.request_id as string);
      if (answer.status === 201) {
        expect(answer.body.platform_account_number).toBe((await accountsOf(tenant.supplier, number))[0]);
      } else {
        expect(answer.body.code).toMatch(/^account_import_process_(rescheduled|already_imported)$/);
      }
    }
  });

  it('a re-schedule replaces the delayed job: one scheduled creation per account', async () => {
    const tenant = await createTenant(app());
    const number = external();
    const requests: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = { ...account(tenant.supplier, number), billing_name: `Name ${i}` };
      const res = await schedule(tenant, { payload: body, task_params: { schedule_window_start: inAnHour() } });
      expect(res.status).toBe(201);
      requests.push(res.body.request_id as string);
    }

    const states = await withQueue((queue) =>
      Promise.all(requests.map(async (id) => (await queue.getJob(id))?.getState() ?? 'gone')),
    );
    expect(states.filter((s) => s === 'delayed')).toHaveLength(1);
    expect(states[4]).toBe('delayed');
    for (const id of requests.slice(0, 4)) {
      expect((await answerOf(tenant, id)).body.code).toBe('account_import_process_rescheduled');
    }
  });

  it('a schedule whose job was lost, retried with its key, is scheduled again (not answered by itself)', async () => {
    const tenant = await createTenant(app());
    const number = external();
    // One body for both sends: the retry must be the same request, whenever it is sent.
    const body = { payload: account(tenant.supplier, number), task_params: { schedule_window_start: inAnHour() } };
    const send = () =>
      request(app().baseUrl, 'POST', '/v2/data-import/accounts/', {
        token: tenant.token,
        headers: { 'idempotency-key': `lost-${number}` },
        body,
      });
    const first = await send();
    const id = first.body.request_id as string;
    // Redis lost the job; the maintenance run answered its request "retry as it is".
    await withQueue(async (queue) => (await queue.getJob(id))!.remove());
    await app().db.pool.query(
      `UPDATE request_results SET http_status = 500, body = '{"code":"temporary_failure"}', finished_at = now()
        WHERE id = $1`,
      [id],
    );

    const again = await send();

    expect(again.status).toBe(201);
    expect(again.body.request_id).toBe(id);
    expect(await withQueue(async (queue) => (await queue.getJob(id))?.getState())).toBe('delayed');
  });

  it('a v2 dry run writes nothing: the staged account, its events, the pending list and Stripe bindings stay', async () => {
    const tenant = await createTenant(app());
    const number = external();
    await stageAccount(app(), tenant, { ...account(tenant.supplier, number), billing_name: 'Staged Name' });
    const events = await eventsOf(tenant.supplier, number);
    const customer = `cus_${uniqueSuffix()}`;
    const method = world.fake.addCard({ customer });
    const dryOnly = external();

    const dry = await schedule(tenant, {
      payload: {
        ...account(tenant.supplier, number),
        billing_name: 'Dry Run Name',
        payment_instructions: [card(method.id)],
      },
      task_params: { is_dry_run: true },
    });
    const dryUnstaged = await schedule(tenant, {
      payload: account(tenant.supplier, dryOnly),
      task_params: { is_dry_run: true },
    });

    expect((await answerOf(tenant, dry.body.request_id as string)).body).toEqual({
      external_account_number: number,
      dry_run: true,
    });
    expect((await answerOf(tenant, dryUnstaged.body.request_id as string)).status).toBe(201);
    const { rows } = await app().db.pool.query<{ name: string }>(
      `SELECT payload->>'billing_name' AS name FROM account_import_processes
        WHERE supplier_code = $1 AND external_account_number = $2`,
      [tenant.supplier, number],
    );
    expect(rows).toEqual([{ name: 'Staged Name' }]);
    expect(await eventsOf(tenant.supplier, number)).toEqual(events);
    const bindings = await app().db.pool.query('SELECT 1 FROM stripe_customer_bindings WHERE customer_id = $1', [
      customer,
    ]);
    expect(bindings.rows).toEqual([]);
    const all = await request(
      app().baseUrl,
      'GET',
      `/v1/data-import/all-account-import-processes/${tenant.supplier}/`,
      {
        token: tenant.token,
      },
    );
    expect((all.body as Body[]).map((p) => p.external_account_number)).toEqual([number]);
  });

  it('a hold whose job no longer exists (a crash mid-creation) is released ERRORED; a live job keeps its hold', async () => {
    const tenant = await createTenant(app());
    const [crashed, alive] = [external(), external()];
    await stageAccount(app(), tenant, account(tenant.supplier, crashed));
    const live = await schedule(tenant, {
      payload: account(tenant.supplier, alive),
      task_params: { schedule_window_start: inAnHour() },
    });
    const names = (n: string, resultId: string) => ({
      supplierCode: tenant.supplier,
      externalAccountNumber: n,
      resultId,
    });
    expect(await markCreationStarted(app().db.pool, names(crashed, randomUUID()), new Date())).toBeDefined();
    // The live schedule's own job (delayed in Redis) takes its process, as when it starts.
    const liveId = live.body.request_id as string;
    expect(
      await markCreationStarted(app().db.pool, { ...names(alive, liveId), schedule: liveId }, new Date()),
    ).toBeDefined();
    await app().db.pool.query(
      `UPDATE account_import_processes SET held_at = now() - interval '10 minutes' WHERE supplier_code = $1`,
      [tenant.supplier],
    );
    expect(await v1Status(tenant, crashed)).toBe('IN_PROGRESS');

    await releaseAbandonedHolds(app().db, app().config, new Date());

    expect(await v1Status(tenant, crashed)).toBe('UNKNOWN');
    expect((await importStatus(app(), tenant, tenant.supplier, crashed)).body).toMatchObject({
      status: 'ERRORED',
      latest_error: { code: 'creation_interrupted' },
    });
    expect(await v1Status(tenant, alive)).toBe('IN_PROGRESS');
    // Released, the account may be processed again.
    expect((await processCall(tenant, crashed)).status).toBe(201);
  });
});

describe('bounds on one account and one organisation', () => {
  let world: InstructionsWorld;
  beforeAll(async () => {
    world = await startInstructionsWorld(15_000);
    await applyCatalogue(world.app);
  });
  afterAll(() => world.close());

  const post = (t: Tenant, path: string, body: unknown) =>
    request(world.app.baseUrl, 'POST', path, { token: t.token, body });
  const transactions = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      transaction_id: `T-${i}`,
      transaction_date: '2019-09-01',
      amount: '1.00',
      type: 'PAYMENT',
      reason: 'ACCOUNT_CHARGE_PAYMENT',
    }));

  it('an account of more than 5,000 items is 413 account_too_large before it is validated', async () => {
    const tenant = world.tenant;
    const body = { ...account(tenant.supplier, 'EXT-HUGE'), current_statement_transactions: transactions(5_001) };
    const res = await post(tenant, '/v1/data-import/validate-account/', body);
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('account_too_large');
  });

  it('a 400 lists at most 100 faults and counts them all', async () => {
    const tenant = world.tenant;
    const notes = Array.from({ length: 300 }, () => ({ body: 'x', created_at: 'not a date' }));
    const res = await post(tenant, '/v1/data-import/validate-account/', {
      ...account(tenant.supplier, 'EXT-BAD'),
      notes,
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toHaveLength(100);
    expect(res.body.error_count).toBe(300);
  });

  it('a window that starts in the past is 400 at schedule_window_start; nothing is staged', async () => {
    const tenant = world.tenant;
    const start = new Date(Date.now() - 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const res = await post(tenant, '/v2/data-import/accounts/', {
      payload: account(tenant.supplier, 'EXT-PAST'),
      task_params: { schedule_window_start: start },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].attr).toBe('task_params.schedule_window_start');
    expect((await importStatus(world.app, tenant, tenant.supplier, 'EXT-PAST')).status).toBe(404);
  });

  it('under the cap, a schedule still answers its own faults: 400 fields, 404 supplier, 400 database checks', async () => {
    const tenant = await createTenant(world.app);
    const bad = await post(tenant, '/v2/data-import/accounts/', {
      payload: { ...account(tenant.supplier, 'EXT-F1'), billing_postcode: 'NOPE' },
    });
    expect([bad.status, bad.body.errors[0].code]).toEqual([400, 'invalid_postcode']);
    const hidden = await post(tenant, '/v2/data-import/accounts/', { payload: account('NO_SUCH_SUPPLIER', 'EXT-F2') });
    expect(hidden.status).toBe(404);
    const team = await post(tenant, '/v2/data-import/accounts/', {
      payload: { ...account(tenant.supplier, 'EXT-F3'), operations_team_name: 'No such team' },
    });
    expect([team.status, team.body.errors[0].code]).toEqual([400, 'operations_team_name_does_not_exist']);
    for (const number of ['EXT-F1', 'EXT-F3'])
      expect((await importStatus(world.app, tenant, tenant.supplier, number)).status).toBe(404);
  });

  it('a schedule whose process another request inserts at that very moment reads that process', async () => {
    const tenant = await createTenant(world.app);
    const names = { supplierCode: tenant.supplier, externalAccountNumber: `EXT-${uniqueSuffix()}` };
    const other = await world.app.db.pool.connect();
    try {
      await other.query('BEGIN');
      await insertProcess(other, names.supplierCode, names.externalAccountNumber, '{"staged": "first"}', new Date());
      // Waits on the uncommitted row; its statement's snapshot predates the row once it commits.
      const prepared = prepareSchedule(world.app.db.pool, names, '{"staged": "second"}', new Date());
      await until('the schedule waiting for the other insert', async () => {
        const { rows } = await world.app.db.pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO account_import_processes%'`,
        );
        return rows[0]!.n > 0 ? true : undefined;
      });
      await other.query('COMMIT');
      expect(await prepared).toEqual({
        status: 'PENDING',
        scheduledRequestId: null,
        platformAccountNumber: null,
        samePayload: false,
        scheduleLive: true,
      });
    } finally {
      other.release();
    }
  });

  it('an organisation with 2,000 schedules waiting gets 429 too_many_scheduled_creations; another organisation does not', async () => {
    const busy = await createTenant(world.app);
    const other = await createTenant(world.app);
    const { rows } = await world.app.db.pool.query<{ id: number }>(
      'SELECT organisation_id AS id FROM organisation_suppliers WHERE supplier_code = $1',
      [busy.supplier],
    );
    const organisationId = rows[0]!.id;
    await world.app.db.pool.query(
      `INSERT INTO request_results (id, organisation_id, endpoint, body_hash)
       SELECT gen_random_uuid()::text, $1, 'v2/accounts', 'x' FROM generate_series(1, 2000)`,
      [organisationId],
    );
    try {
      const refused = await post(busy, '/v2/data-import/accounts/', { payload: account(busy.supplier, 'EXT-CAP') });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('too_many_scheduled_creations');
      expect(refused.headers.get('retry-after')).toBeTruthy();
      // The cap answers before the account's own faults, whether the fields, the supplier or the
      // database find them (one statement reads the cap with the supplier and the database's facts).
      const bad = { ...account(busy.supplier, 'EXT-CAP-BAD'), billing_postcode: 'NOT A POSTCODE' };
      const unknownTeam = { ...account(busy.supplier, 'EXT-CAP-TEAM'), operations_team_name: 'No such team' };
      for (const body of [
        { payload: bad },
        { payload: 'not an account' },
        { payload: account('NO_SUCH_SUPPLIER', 'EXT-CAP-SUP') },
        { payload: unknownTeam },
      ]) {
        const res = await post(busy, '/v2/data-import/accounts/', body);
        expect([res.status, res.body.code]).toEqual([429, 'too_many_scheduled_creations']);
      }
      for (const number of ['EXT-CAP', 'EXT-CAP-BAD', 'EXT-CAP-TEAM'])
        expect((await importStatus(world.app, busy, busy.supplier, number)).status).toBe(404);
      const fine = await post(other, '/v2/data-import/accounts/', { payload: account(other.supplier, 'EXT-CAP') });
      expect(fine.status).toBe(201);
    } finally {
      await world.app.db.pool.query(`DELETE FROM request_results WHERE organisation_id = $1 AND body_hash = 'x'`, [
        organisationId,
      ]);
    }
  });
});
