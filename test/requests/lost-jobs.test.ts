// A queued request whose job vanished from Redis (an evicting Redis, a Redis restarted without its
// data) gets a final answer from the maintenance run instead of staying pending for ever: 500 "retry
// the request as it is", after which a retry with the same Idempotency-Key runs it. The API's own
// commits (DIRECT_COMMIT=on) leave no pending row to lose: these requests go through the queue.
import { Redis } from 'ioredis';
import { QUEUED_REQUEST_JOBS } from '../../shared/catalog/jobs';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { answerLostJobs } from '../../shared/requests/answer-lost-jobs';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { createTenant, request, settled, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
} from '../transactions/transactions.fixture';

describe('a pending request whose job vanished from Redis', () => {
  let app: TestApp;
  let tenant: Tenant;
  let workers: RunningWorkers | undefined;
  const redis = new Redis(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');

  beforeAll(async () => {
    // No workers yet: the jobs stay in their queue, their requests pending.
    app = await startTestApp({ RESULT_WAIT_MS: '300', DIRECT_COMMIT: 'off' });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await workers?.stop();
    await app.close();
    redis.disconnect();
  });

  it('is answered 500 retry-as-is, one whose job is still queued is left alone, and the retry runs it', async () => {
    const account = await importedAccount(app, tenant);
    const lostBody = envelope(tenant, account, [payment('vanished-1')]);
    const lostKey = `vanished-${account.external}`;
    const beforeBoth = Date.now();
    const lost = await postTransactions(app, tenant.token, lostBody, { idempotencyKey: lostKey });
    const kept = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('queued-1')]));
    expect([lost.status, kept.status]).toEqual([503, 503]);
    const lostId = lost.body.request_id as string;
    const keptId = kept.body.request_id as string;

    // What an evicting Redis does to a waiting job: its hash and its place in the wait list go.
    const queueKey = `${app.config.QUEUE_PREFIX}:${transactionImportJob.queue}`;
    expect(await redis.del(`${queueKey}:${lostId}`)).toBe(1);
    await redis.lrem(`${queueKey}:wait`, 0, lostId);

    // A run as of before they were sent leaves them pending; one a minute on answers the lost one only.
    // (Other files' leftover rows in this test database may be answered too: hence no exact counts.)
    const pendingIds = async () =>
      (await storedResults(app, organisationOf(tenant))).filter((r) => r.httpStatus === null).map((r) => r.id);
    await answerLostJobs(app.db, app.config, QUEUED_REQUEST_JOBS, new Date(beforeBoth - 1));
    expect((await pendingIds()).sort()).toEqual([lostId, keptId].sort());
    expect(
      await answerLostJobs(app.db, app.config, QUEUED_REQUEST_JOBS, new Date(Date.now() + 60_000)),
    ).toBeGreaterThanOrEqual(1);
    expect(await pendingIds()).toEqual([keptId]);

    const polled = await request(app.baseUrl, 'GET', `/v1/data-import/requests/${lostId}/`, { token: tenant.token });
    expect(polled.status).toBe(500);
    expect(polled.body.code).toBe('temporary_failure');

    // The answer says "retry as it is": the retry with the key runs the request, and so does the kept job.
    workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const retry = await settled(
      app.baseUrl,
      tenant.token,
      await postTransactions(app, tenant.token, lostBody, { idempotencyKey: lostKey }),
    );
    expect(retry.status).toBe(201);
    expect(retry.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
    const stored = await storedTransactions(app, account.accountId);
    expect(stored.map((t) => t.transactionId)).toContain('vanished-1');
  });
});
