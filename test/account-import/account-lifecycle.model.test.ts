// A model-based test of the account import process's life (fast-check's fc.commands and
// fc.asyncModelRun): random interleavings of stage, process, schedule (same and other data, now or in an
// hour), dry runs, cancel, the dashboard's retry of a finished job, a worker killed mid-creation (its hold
// left behind, released by the sweep) and a worker restart, against the real API, workers, PostgreSQL and
// Redis. After every command: at most one account per process, its number never changes, every process
// final or legitimately pending, every status endpoint agreeing, and its events a path through the
// transition table. ACCOUNT_MODEL_RUNS sets the number of runs (docs/testing.md); the default is short.
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import fc from 'fast-check';
import { accountScheduleJob } from '../../shared/account-import/account-creation.job';
import { cancelAccountCreation } from '../../shared/account-import/account-creation.use-cases';
import { markCreationStarted } from '../../shared/account-import/create-account';
import { TRANSITIONS, type ProcessStatus } from '../../shared/account-import/process-lifecycle';
import { HOLD_GRACE_MS, releaseAbandonedHolds } from '../../shared/account-import/release-holds.job';
import { producerConnection } from '../../shared/platform/queues';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { until } from '../helpers/until';
import { account, applyCatalogue } from './account.fixture';

const RUNS = Number(process.env.ACCOUNT_MODEL_RUNS ?? '6');

/** What the model knows: the account's number once created (it never changes), and the requests made. */
interface Model {
  created: string | undefined;
  requests: string[];
}

interface Real {
  app: TestApp;
  tenant: Tenant;
  number: string;
  workers: { current: RunningWorkers | undefined };
}

const EVENT_TARGET = new Map<string, ProcessStatus>(
  Object.values(TRANSITIONS).map((t) => [t.name, t.to] as [string, ProcessStatus]),
);

describe('the account import process, as a model', () => {
  let app: TestApp;
  const workers: { current: RunningWorkers | undefined } = { current: undefined };
  let queue: Queue;
  beforeAll(async () => {
    app = await startTestApp();
    workers.current = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    await applyCatalogue(app);
    queue = new Queue(accountScheduleJob.queue, {
      connection: producerConnection(app.config),
      prefix: app.config.QUEUE_PREFIX,
    });
  });
  afterAll(async () => {
    await queue.close();
    await workers.current?.stop();
    await app.close();
  });

  const post = (r: Real, path: string, body: unknown) =>
    request(r.app.baseUrl, 'POST', path, { token: r.tenant.token, body });
  const body = (r: Real, variant: number) => ({
    ...account(r.tenant.supplier, r.number),
    billing_name: `Name ${variant}`,
  });
  const hourAhead = () => new Date(Date.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');

  /** A command: what it does to the real system, and what its answer may be given the model. */
  const command = (
    name: string,
    act: (r: Real, m: Model) => Promise<{ status: number; body: Record<string, unknown> } | void>,
  ): fc.AsyncCommand<Model, Real> => ({
    check: () => true,
    async run(m, r) {
      const res = await act(r, m);
      if (res) {
        expect(res.status).toBeLessThan(500);
        if (typeof res.body.request_id === 'string') m.requests.push(res.body.request_id);
        // Once created, every write that names the account answers that it is imported (or a replay).
        if (
          m.created !== undefined &&
          res.status === 400 &&
          res.body.code === 'account_import_process_already_imported'
        )
          expect(res.body.platform_account_number).toBe(m.created);
      }
      await settle(r);
      await checkInvariants(r, m);
    },
    toString: () => name,
  });

  const commands = [
    fc
      .integer({ min: 0, max: 2 })
      .map((v) =>
        command(`stage(${v})`, (r) => post(r, '/v1/data-import/account-import-process/create-or-update/', body(r, v))),
      ),
    fc.boolean().map((dry) =>
      command(`process(dry=${dry})`, (r) =>
        post(r, '/v1/data-import/account-import-process/process/', {
          import_supplier_code: r.tenant.supplier,
          external_account_number: r.number,
          dry_run: dry,
        }),
      ),
    ),
    fc.record({ v: fc.integer({ min: 0, max: 2 }), dry: fc.boolean(), later: fc.boolean() }).map(({ v, dry, later }) =>
      command(`schedule(${v}, dry=${dry}, later=${later})`, (r) =>
        post(r, '/v2/data-import/accounts/', {
          payload: body(r, v),
          task_params: { is_dry_run: dry, ...(later ? { schedule_window_start: hourAhead() } : {}) },
        }),
      ),
    ),
    fc.constant(
      command('cancel', async (r) => {
        await cancelAccountCreation(r.app.db, r.tenant.supplier, r.number, new Date());
      }),
    ),
    fc.constant(
      command('retry finished jobs (dashboard) / redelivery', async (_r, m) => {
        for (const id of m.requests) {
          const job = await queue.getJob(id);
          if (job && (await job.getState()) === 'completed') await job.retry('completed');
        }
      }),
    ),
    fc.constant(
      command('worker killed mid-creation, then the sweep', async (r) => {
        // A killed job's hold: taken, never ended, its job gone. The sweep runs past its grace.
        const names = { supplierCode: r.tenant.supplier, externalAccountNumber: r.number, resultId: randomUUID() };
        await markCreationStarted(r.app.db.pool, names, new Date());
        await releaseAbandonedHolds(r.app.db, r.app.config, new Date(Date.now() + HOLD_GRACE_MS + 1000));
      }),
    ),
    fc.constant(
      command('worker restart', async (r) => {
        await r.workers.current?.stop();
        r.workers.current = await startWorkers({ config: r.app.config, db: r.app.db, logger: r.app.logger });
      }),
    ),
  ];

  /** Waits until no job runs on the account: no process IN_PROGRESS and no request answerable now pending. */
  async function settle(r: Real): Promise<void> {
    await until(
      'the account settles',
      async () => {
        const { rows } = await r.app.db.pool.query<{ busy: boolean }>(
          `SELECT EXISTS (SELECT 1 FROM account_import_processes
                           WHERE supplier_code = $1 AND external_account_number = $2 AND status = 'IN_PROGRESS') AS busy`,
          [r.tenant.supplier, r.number],
        );
        if (rows[0]!.busy) return undefined;
        const pending = await r.app.db.pool.query<{ id: string }>(
          `SELECT id FROM request_results WHERE finished_at IS NULL AND organisation_id =
             (SELECT organisation_id FROM organisation_suppliers WHERE supplier_code = $1 LIMIT 1)`,
          [r.tenant.supplier],
        );
        for (const { id } of pending.rows) {
          const state = await (await queue.getJob(id))?.getState();
          if (state !== 'delayed') return undefined;
        }
        return true;
      },
      20_000,
    );
  }

  async function checkInvariants(r: Real, m: Model): Promise<void> {
    const { supplier } = r.tenant;
    const { rows: processes } = await r.app.db.pool.query<{
      id: number;
      status: ProcessStatus;
      scheduled_request_id: string | null;
      accounts: string[];
    }>(
      `SELECT p.id, p.status::text AS status, p.scheduled_request_id,
              ARRAY(SELECT platform_account_number FROM accounts a WHERE a.process_id = p.id) AS accounts
         FROM account_import_processes p WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
      [supplier, r.number],
    );
    const p = processes[0];
    if (!p) {
      expect(m.created).toBeUndefined();
      return;
    }
    expect(p.accounts.length).toBeLessThanOrEqual(1);
    const number = p.accounts[0];
    if (m.created !== undefined) expect(number).toBe(m.created);
    m.created = number ?? m.created;
    // Final, or legitimately pending (staged, or its schedule's job waits in Redis).
    expect(p.status).not.toBe('IN_PROGRESS');
    if (p.status === 'PENDING' && p.scheduled_request_id !== null) {
      const state = await (await queue.getJob(p.scheduled_request_id))?.getState();
      expect(['delayed', 'completed', 'failed', undefined]).toContain(state);
    }
    await checkEndpointsAgree(r, p.status, number);
    await checkEventPath(r, p.id, p.status, number);
  }

  async function checkEndpointsAgree(r: Real, status: ProcessStatus, number: string | undefined) {
    const get = (path: string) => request(r.app.baseUrl, 'GET', path, { token: r.tenant.token });
    const { supplier } = r.tenant;
    const v1 = (await get(`/v1/data-import/account-transfer-status/${supplier}/${r.number}/`)).body;
    const v2 = (await get(`/v2/data-import/accounts/${supplier}/${r.number}/`)).body;
    const imported = (await get(`/v1/data-import/imported-account-import-processes/${supplier}/`)).body as unknown[];
    const pending = (await get(`/v1/data-import/pending-account-import-processes/${supplier}/`)).body as unknown[];
    if (number !== undefined) {
      expect(status).toBe('PROCESSED');
      expect(v1).toEqual({ status: 'COMPLETED', platform_account_number: number });
      expect(v2).toMatchObject({ status: 'PROCESSED', platform_identifier: number });
      expect([imported.length, pending.length]).toEqual([1, 0]);
    } else {
      expect(v1.status).toBe('UNKNOWN');
      expect(v2.status).toBe(status);
      expect([imported.length, pending.length]).toEqual([0, 1]);
    }
  }

  /** The events replayed through the transition table: each allowed from the status before it. */
  async function checkEventPath(r: Real, id: number, status: ProcessStatus, number: string | undefined) {
    const { rows } = await r.app.db.pool.query<{ event: string }>(
      'SELECT event FROM account_import_process_events WHERE process_id = $1 ORDER BY id',
      [id],
    );
    expect(rows[0]?.event).toBe('EVENT_ACCOUNT_IMPORT_PROCESS_CREATED');
    let at: ProcessStatus = 'PENDING';
    for (const { event } of rows.slice(1)) {
      const to = EVENT_TARGET.get(event);
      expect(to).toBeDefined();
      const allowed = Object.values(TRANSITIONS).some((t) => t.name === event && t.from.includes(at));
      expect({ event, from: at, allowed }).toEqual({ event, from: at, allowed: true });
      at = to!;
    }
    expect(at).toBe(number === undefined ? status : 'PROCESSED');
  }

  it(
    'keeps every invariant under random interleavings',
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.commands(commands, { maxCommands: 10 }), async (cmds) => {
          const tenant = await createTenant(app);
          const real: Real = { app, tenant, number: `EXT-${uniqueSuffix()}`, workers };
          await fc.asyncModelRun(() => ({ model: { created: undefined, requests: [] }, real }), cmds);
        }),
        { numRuns: RUNS, endOnFailure: true },
      );
    },
    60_000 + RUNS * 20_000,
  );
});
