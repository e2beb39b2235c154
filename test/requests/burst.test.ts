// One queue hop per burst (shared/requests/burst.ts): queued writes that reach one API process together
// travel in one job, their rows name it, one completion event answers them all, and each request keeps
// its own answer, its Idempotency-Key replay and, when its burst's job fails, an answer from the sweep.
// With DIRECT_COMMIT=off: the API's own commits of these bursts are test/requests/direct-commit.test.ts.
import { QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { QUEUED_REQUEST_JOBS, REQUEST_QUEUES } from '../../shared/catalog/jobs';
import { blockingConnection, createJobQueues, type JobQueues } from '../../shared/platform/queues';
import { answerLostJobs, FINISHED_JOB_GRACE_MS } from '../../shared/requests/answer-lost-jobs';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { startTenantApp } from '../helpers/tenant-app';
import { testConfig } from '../helpers/context';
import { until } from '../helpers/until';
import { request, type Tenant, type TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedTransactions,
  type TestAccount,
} from '../transactions/transactions.fixture';

const REQUESTS = 24;

/** The job each request's row names: its burst's, or (null) its own. */
async function jobIdsOf(app: TestApp, tenant: Tenant): Promise<Map<string, string | null>> {
  const { rows } = await app.db.pool.query<{ id: string; jobId: string | null }>(
    'SELECT id, job_id AS "jobId" FROM request_results WHERE organisation_id = $1',
    [organisationOf(tenant)],
  );
  return new Map(rows.map((r) => [r.id, r.jobId]));
}

describe('queued writes that arrive together', () => {
  let app: TestApp;
  let tenant: Tenant;
  let workers: RunningWorkers | undefined;
  let accounts: TestAccount[];

  beforeAll(async () => {
    // Long enough for 24 requests to a cold worker on a busy machine; the second test waits it out.
    ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '15000', DIRECT_COMMIT: 'off' }));
    accounts = [];
    for (let i = 0; i < REQUESTS / 2; i++) accounts.push(await importedAccount(app, tenant));
  });
  afterAll(async () => {
    await workers?.stop();
    await app.close();
  });

  it('travel in fewer jobs than requests, each answered with its own result by one event per job, and replay by key', async () => {
    workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const events = new QueueEvents(transactionImportJob.queue, {
      connection: blockingConnection(app.config),
      prefix: app.config.QUEUE_PREFIX,
    });
    const completed: string[] = [];
    events.on('completed', ({ jobId }) => completed.push(jobId));
    await events.waitUntilReady();
    try {
      // Two requests per account: the second of each must see the first's rows (never in one transaction).
      const sent = Array.from({ length: REQUESTS }, (_, i) => ({
        account: accounts[i % accounts.length]!,
        id: `burst-${i}`,
        key: `burst-key-${i}`,
      }));
      const answers = await Promise.all(
        sent.map((s) =>
          postTransactions(app, tenant.token, envelope(tenant, s.account, [payment(s.id)]), { idempotencyKey: s.key }),
        ),
      );

      expect(answers.map((a) => a.status)).toEqual(sent.map(() => 201));
      expect(answers.map((a) => a.body.results[0].transaction_data.transaction_id)).toEqual(sent.map((s) => s.id));
      // Each answer names the row its own transaction became (the compact answers are expanded with the
      // API's copy of each request, so the row id is what would show a crossed answer).
      const rowIdOf = new Map<string, number>();
      for (const account of accounts) {
        const stored = await storedTransactions(app, account.accountId);
        expect(stored.map((t) => t.transactionId).sort()).toEqual(
          sent
            .filter((s) => s.account === account)
            .map((s) => s.id)
            .sort(),
        );
        for (const t of stored) rowIdOf.set(t.transactionId, Number(t.id));
      }
      expect(answers.map((a) => a.body.results[0].added_transaction_id)).toEqual(sent.map((s) => rowIdOf.get(s.id)));
      const jobOf = await jobIdsOf(app, tenant);
      const jobs = new Set([...jobOf].map(([id, jobId]) => jobId ?? id));
      expect(jobOf.size).toBe(REQUESTS);
      expect(jobs.size).toBeLessThan(REQUESTS);
      // Every job's id is one of its requests' ids, and each job completed with one event.
      for (const jobId of jobs) expect(jobOf.has(jobId)).toBe(true);
      await until('a completion event of every job', async () => (completed.length >= jobs.size ? true : undefined));
      expect(new Set(completed)).toEqual(jobs);

      const replay = await postTransactions(
        app,
        tenant.token,
        envelope(tenant, sent[5]!.account, [payment(sent[5]!.id)]),
        {
          idempotencyKey: sent[5]!.key,
        },
      );
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.results[0].transaction_data.transaction_id).toBe(sent[5]!.id);
      expect(await storedTransactions(app, sent[5]!.account.accountId)).toHaveLength(2);
    } finally {
      await events.close();
      await workers.stop();
      workers = undefined;
    }
  });

  it('are answered 500 "retry as it is" by the sweep once their failed job has had its grace, and not before', async () => {
    // Every attempt of the burst's job fails without storing any answer (a database that refuses the
    // worker on each attempt): the job ends failed, the rows stay pending.
    const failedJobs: string[] = [];
    const breaking = new Worker(
      transactionImportJob.queue,
      async () => {
        throw new UnrecoverableError('database unreachable on every attempt');
      },
      { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX, concurrency: 4 },
    );
    breaking.on('failed', (job) => failedJobs.push(job!.id!));
    try {
      const sent = accounts.slice(0, 8).map((account, i) => ({ account, id: `failing-${i}` }));
      const answers = await Promise.all(
        sent.map((s) => postTransactions(app, tenant.token, envelope(tenant, s.account, [payment(s.id)]))),
      );
      expect(answers.map((a) => a.status)).toEqual(sent.map(() => 503));
      const ids = answers.map((a) => a.body.request_id as string);
      const jobOf = await jobIdsOf(app, tenant);
      const jobs = new Set(ids.map((id) => jobOf.get(id) ?? id));
      await until('every job of the requests to fail', async () =>
        [...jobs].every((j) => failedJobs.includes(j)) ? true : undefined,
      );
      expect(failedJobs.filter((j) => jobs.has(j)).sort()).toEqual([...jobs].sort());

      // (Other files' leftover rows in this test database may be answered too: hence no exact counts.)
      const pending = async () =>
        (
          await app.db.pool.query<{ id: string }>(
            'SELECT id FROM request_results WHERE id = ANY($1::text[]) AND finished_at IS NULL',
            [ids],
          )
        ).rows.length;
      const pastWait = Date.now() + app.config.RESULT_WAIT_MS + 1000;
      await answerLostJobs(app.db, app.config, QUEUED_REQUEST_JOBS, new Date(pastWait));
      expect(await pending()).toBe(sent.length);
      const pastGrace = new Date(pastWait + FINISHED_JOB_GRACE_MS);
      expect(await answerLostJobs(app.db, app.config, QUEUED_REQUEST_JOBS, pastGrace)).toBeGreaterThanOrEqual(
        sent.length,
      );
      expect(await pending()).toBe(0);

      for (const [i, id] of ids.entries()) {
        const { rows } = await app.db.pool.query<{ httpStatus: number }>(
          'SELECT http_status AS "httpStatus" FROM request_results WHERE id = $1',
          [id],
        );
        expect([i, rows[0]?.httpStatus]).toEqual([i, 500]);
        expect(await storedTransactions(app, sent[i]!.account.accountId)).not.toContainEqual(
          expect.objectContaining({ transactionId: sent[i]!.id }),
        );
      }
    } finally {
      await breaking.close();
    }
  }, 90_000);
});

describe('queued writes that arrive together while the queue refuses their job', () => {
  let app: TestApp;
  let tenant: Tenant;
  let queues: JobQueues;

  beforeAll(async () => {
    queues = createJobQueues(testConfig(), REQUEST_QUEUES);
    ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '300', DIRECT_COMMIT: 'off' }, { queues }));
    // Closed: every add is refused, as when Redis is unreachable.
    await queues.queue(transactionImportJob.queue).close();
  });
  afterAll(async () => {
    await app.close();
    await queues.close();
  });

  it('are each refused 503 queue_unavailable with their own stored answer, and a replay of an earlier key is not refused with them', async () => {
    const account = await importedAccount(app, tenant);
    const key = `refused-earlier-${account.external}`;
    const earlierBody = envelope(tenant, account, [payment('earlier-1')]);
    // A request with this key answered before (its row finished with a final answer).
    const earlier = await postTransactions(app, tenant.token, earlierBody, { idempotencyKey: key });
    expect(earlier.status).toBe(503);
    await app.db.pool.query(
      `UPDATE request_results SET http_status = 400, body = '{"code":"x"}', error_code = 'x' WHERE id = $1`,
      [earlier.body.request_id],
    );

    const sent = Array.from({ length: 8 }, (_, i) => envelope(tenant, account, [payment(`refused-${i}`)]));
    const [replay, ...answers] = await Promise.all([
      postTransactions(app, tenant.token, earlierBody, { idempotencyKey: key }),
      ...sent.map((body) => postTransactions(app, tenant.token, body)),
    ]);

    expect([replay.status, replay.headers.get('idempotent-replayed')]).toEqual([400, 'true']);
    expect(answers.map((a) => [a.status, a.body.code])).toEqual(sent.map(() => [503, 'queue_unavailable']));
    for (const answer of answers) {
      const polled = await request(app.baseUrl, 'GET', answer.headers.get('location')!, { token: tenant.token });
      expect([polled.status, polled.body]).toEqual([503, answer.body]);
    }
    expect(await storedTransactions(app, account.accountId)).toEqual([]);
  });
});
