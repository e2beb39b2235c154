// Queued writes while the database refuses the worker (its role capped at no connection at all, as a
// managed server's connection limit does under pressure): every attempt of their jobs fails, so even
// their final "retry as it is" answer cannot be stored, and their jobs end failed with the rows pending.
// Once the cap is lifted, the lost-job sweep answers each of them (500 temporary_failure under its
// Location), and the client's retry with the same Idempotency-Key writes the work exactly once.
import { Client } from 'pg';
import { QUEUED_REQUEST_JOBS } from '../../shared/catalog/jobs';
import { createDatabase, type Database } from '../../shared/platform/db';
import { answerLostJobs, FINISHED_JOB_GRACE_MS } from '../../shared/requests/answer-lost-jobs';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { request, settled, type Tenant, type TestApp } from '../helpers/app';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';
import { openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import {
  envelope,
  importedAccount,
  payment,
  postTransactions,
  storedTransactions,
  type TestAccount,
} from '../transactions/transactions.fixture';

const ROLE = `burst_refused_${uniqueSuffix().toLowerCase()}`;
const REQUESTS = 6;

async function asOwner(sql: string): Promise<void> {
  const c = new Client({ connectionString: testDatabaseUrl });
  await c.connect();
  try {
    await c.query(sql);
  } finally {
    await c.end();
  }
}

describe('queued writes while the database refuses every worker connection', () => {
  let app: TestApp;
  let tenant: Tenant;
  let workerDb: Database;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp(
      { RESULT_WAIT_MS: '300', DIRECT_COMMIT: 'off' },
      { jobBackoff: { type: 'fixed', delay: 20 } },
    ));
    await asOwner(`CREATE ROLE "${ROLE}" LOGIN`);
    await asOwner(`GRANT USAGE ON SCHEMA public TO "${ROLE}"`);
    await asOwner(`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "${ROLE}"`);
    await asOwner(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO "${ROLE}"`);
    const url = new URL(testDatabaseUrl);
    url.username = ROLE;
    url.password = '';
    workerDb = createDatabase({ ...app.config, DATABASE_URL: url.toString() });
  });
  afterAll(async () => {
    await workers?.stop();
    await workerDb.close();
    await app.close();
    await asOwner(`DROP OWNED BY "${ROLE}"`);
    await asOwner(`DROP ROLE IF EXISTS "${ROLE}"`);
  });

  it('are each answered once the cap is lifted, and the retry with the key writes the work once', async () => {
    const accounts: TestAccount[] = [];
    for (let i = 0; i < REQUESTS; i++) accounts.push(await importedAccount(app, tenant));
    await asOwner(`ALTER ROLE "${ROLE}" CONNECTION LIMIT 0`);
    workers = await startWorkers({ config: app.config, db: workerDb, logger: app.logger });

    const sent = accounts.map((account, i) => ({
      account,
      body: envelope(tenant, account, [payment(`refused-${i}`)]),
      key: `refused-${i}-${account.external}`,
    }));
    const first = await Promise.all(
      sent.map((s) => postTransactions(app, tenant.token, s.body, { idempotencyKey: s.key })),
    );
    expect(first.map((a) => [a.status, a.body.code])).toEqual(sent.map(() => [503, 'result_pending']));
    const ids = first.map((a) => a.body.request_id as string);

    // Every attempt is refused: the jobs end failed, their requests unanswered.
    const { rows } = await app.db.pool.query<{ id: string; jobId: string | null }>(
      'SELECT id, job_id AS "jobId" FROM request_results WHERE id = ANY($1::text[])',
      [ids],
    );
    const jobIds = [...new Set(rows.map((r) => r.jobId ?? r.id))];
    const queue = openTransactionsQueue(app);
    try {
      await until(
        'every job to fail on the refusing database',
        async () => {
          const states = await Promise.all(jobIds.map(async (id) => (await queue.getJob(id))?.getState()));
          return states.every((s) => s === 'failed') ? true : undefined;
        },
        30_000,
      );
    } finally {
      await queue.close();
    }
    const location = (i: number) => first[i]!.headers.get('location')!;
    const polled = await request(app.baseUrl, 'GET', location(0), { token: tenant.token });
    expect([polled.status, polled.body.code]).toEqual([503, 'result_pending']);

    // The cap is lifted; the sweep's next run (one minute apart, 60 s after the jobs failed) answers them.
    await asOwner(`ALTER ROLE "${ROLE}" CONNECTION LIMIT -1`);
    const later = new Date(Date.now() + app.config.RESULT_WAIT_MS + FINISHED_JOB_GRACE_MS + 1_000);
    expect(await answerLostJobs(app.db, app.config, QUEUED_REQUEST_JOBS, later)).toBeGreaterThanOrEqual(REQUESTS);
    for (const i of sent.keys()) {
      const answer = await request(app.baseUrl, 'GET', location(i), { token: tenant.token });
      expect([answer.status, answer.body.code]).toEqual([500, 'temporary_failure']);
    }

    const retried = await Promise.all(
      sent.map((s) => postTransactions(app, tenant.token, s.body, { idempotencyKey: s.key })),
    );
    // Each retry is answered 201, or (past its short wait) 503 with a Location that comes to answer 201.
    const answers = await Promise.all(retried.map((r) => settled(app.baseUrl, tenant.token, r)));
    expect(answers.map((a) => a.status)).toEqual(sent.map(() => 201));
    for (const [i, s] of sent.entries()) {
      expect((await storedTransactions(app, s.account.accountId)).map((t) => t.transactionId)).toEqual([
        `refused-${i}`,
      ]);
    }
  });
});
