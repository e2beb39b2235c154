// A queued request that answers 503 names itself and where its answer can be polled, so a client
// without an Idempotency-Key learns the outcome instead of posting again (and doubling the work).
import { randomUUID } from 'node:crypto';
import { Queue } from 'bullmq';
import { createJobQueues, producerConnection, type JobQueues } from '../../shared/platform/queues';
import { purgeExpiredAnswers } from '../../shared/requests/purge-answers';
import { storeAnswerIfPending, findResult } from '../../shared/requests/request-result.repository';
import { ValidationError } from '../../shared/platform/errors';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { testConfig } from '../helpers/context';
import { until } from '../helpers/until';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
} from '../transactions/transactions.fixture';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { purgeAnswersJob } from '../../shared/requests/purge-answers.job';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';

const METRICS_TOKEN = 'metrics-token-for-request-answers-tests';

const poll = (app: TestApp, tenant: Tenant, location: string) =>
  request(app.baseUrl, 'GET', location, { token: tenant.token });

describe('GET /v1/data-import/requests/<id>/ after a 503 result_pending', () => {
  let app: TestApp;
  let tenant: Tenant;
  let other: Tenant;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '5000', DIRECT_COMMIT: 'off' }));
    other = await createTenant(app);
  });
  afterAll(async () => {
    await workers?.stop();
    await app.close();
  });

  it('serves 503 while the work is queued, then the stored 201, and the work is done once (no key, check_previously_added=false)', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [{ ...payment('polled-1'), unknown_field: 'dropped' }], {
      surprise: 'dropped too',
    });

    const pending = await postTransactions(app, tenant.token, body, { query: 'check_previously_added=false' });

    expect(pending.status).toBe(503);
    const [row] = await storedResults(app, organisationOf(tenant));
    const location = `/v1/data-import/requests/${row!.id}/`;
    expect(pending.body).toMatchObject({ code: 'result_pending', request_id: row!.id });
    expect(pending.headers.get('location')).toBe(location);

    const stillPending = await poll(app, tenant, location);
    expect(stillPending.status).toBe(503);
    expect(stillPending.body).toMatchObject({ code: 'result_pending', request_id: row!.id });
    expect(stillPending.headers.get('location')).toBe(location);
    expect(stillPending.headers.get('retry-after')).toBe('2');

    // The job carries the validated request (no unknown fields), its payload version, and a bounded failed-job count.
    const queue = openTransactionsQueue(app);
    try {
      const job = await queue.getJob(row!.id);
      expect(job?.data.version).toBe(transactionImportJob.payload.version);
      expect(JSON.stringify(job?.data.payload)).not.toContain('dropped');
      expect(job?.data.payload.request.transactions[0]).toMatchObject({ transaction_id: 'polled-1', amount: '71.00' });
      expect(job?.opts.removeOnFail).toEqual({
        age: expect.any(Number) as unknown,
        count: expect.any(Number) as unknown,
      });
    } finally {
      await queue.close();
    }

    workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const answer = await until('the polled answer', async () => {
      const res = await poll(app, tenant, location);
      return res.status === 503 ? undefined : res;
    });

    expect(answer.status).toBe(201);
    expect(answer.headers.get('idempotent-replayed')).toBeNull();
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.transactionId)).toEqual(['polled-1']);
    expect(answer.body.results).toEqual([
      {
        status: 'TRANSACTION_ADDED_TO_ACCOUNT',
        transaction_data: payment('polled-1', { amount: '71.00' }),
        added_transaction_id: Number(rows[0]!.id),
      },
    ]);
    expect(await poll(app, tenant, location)).toMatchObject({ status: 201, body: answer.body });
    expect(await storedResults(app, organisationOf(tenant))).toHaveLength(1);
  });

  it('stores an answer whole when it echoes a transaction the compact form cannot find again (one already on the account)', async () => {
    const account = await importedAccount(app, tenant);
    workers ??= await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const first = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('twice')]));
    expect(first.status).toBe(201);
    const again = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('twice'), payment('fresh')]),
      { query: 'check_previously_added=true' },
    );

    expect(again.status).toBe(201);
    const [row] = (await storedResults(app, organisationOf(tenant))).slice(-1);
    expect(row!.body).toEqual(again.body);
    expect(again.body.results.map((r: { status: string }) => r.status)).toEqual([
      'TRANSACTION_ALREADY_EXISTS',
      'TRANSACTION_ADDED_TO_ACCOUNT',
    ]);
    expect(await poll(app, tenant, `/v1/data-import/requests/${row!.id}/`)).toMatchObject({
      status: 201,
      body: again.body,
    });
  });

  it('answers 404 request_not_found for a compact stored answer whose transactions are no longer there', async () => {
    const account = await importedAccount(app, tenant);
    workers ??= await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const done = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('gone')]));
    expect(done.status).toBe(201);
    const [row] = (await storedResults(app, organisationOf(tenant))).slice(-1);
    await app.db.pool.query('DELETE FROM transactions WHERE account_id = $1', [account.accountId]);

    const res = await poll(app, tenant, `/v1/data-import/requests/${row!.id}/`);

    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'request_not_found' });
  });

  it("answers 404 request_not_found for another organisation's request exactly as for an unknown or malformed id", async () => {
    const account = await importedAccount(app, tenant);
    workers ??= await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const done = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('mine')]));
    expect(done.status).toBe(201);
    const [row] = (await storedResults(app, organisationOf(tenant))).slice(-1);
    // Stored compact (no echo of the request); its Location rebuilds the very answer the request got.
    const [stored] = await storedTransactions(app, account.accountId);
    expect(row!.body).toEqual({ status: 201, items: [{ added: true, id: Number(stored!.id) }] });
    expect(await poll(app, tenant, `/v1/data-import/requests/${row!.id}/`)).toMatchObject({
      status: 201,
      body: done.body,
    });

    const answers = await Promise.all(
      [
        `/v1/data-import/requests/${row!.id}/`,
        `/v1/data-import/requests/${randomUUID()}/`,
        `/v1/data-import/requests/${'x'.repeat(5000)}/`,
      ].map((path) => poll(app, other, path)),
    );
    for (const res of answers) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ detail: answers[0]!.body.detail, code: 'request_not_found' });
    }
  });

  it('stores the account, the Data-Import-Run-Id and the error code of a refusal, and counts the code by route', async () => {
    const account = await importedAccount(app, tenant);
    workers ??= await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const outside = payment('too-early', { transaction_date: '2019-09-01' });

    const refused = await postTransactions(app, tenant.token, envelope(tenant, account, [outside]), {
      query: 'force_add_to_current_statement=false',
      headers: { 'data-import-run-id': 'run 2026-11-25 #1' },
    });

    expect(refused.status).toBe(400);
    const [row] = (await storedResults(app, organisationOf(tenant))).slice(-1);
    expect(row).toMatchObject({
      accountId: account.accountId,
      runId: 'run 2026-11-25 #1',
      errorCode: 'transaction_import_error',
      httpStatus: 400,
    });
  });

  it('refuses an unusable Data-Import-Run-Id with 400 invalid_run_id before anything is stored', async () => {
    const account = await importedAccount(app, tenant);
    const before = (await storedResults(app, organisationOf(tenant))).length;
    for (const runId of ['x'.repeat(65), 'tab\there', 'café']) {
      const res = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('never')]), {
        headers: { 'data-import-run-id': runId },
      });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'invalid_run_id',
        errors: [{ attr: 'Data-Import-Run-Id', code: 'invalid_run_id' }],
      });
    }
    expect(await storedResults(app, organisationOf(tenant))).toHaveLength(before);
  });

  it('purges answers a day after they finished, keeping the key and body hash, and polls them as gone', async () => {
    const account = await importedAccount(app, tenant);
    workers ??= await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const key = `purged-${account.external}`;
    expect(
      (await postTransactions(app, tenant.token, envelope(tenant, account, [payment('old')]), { idempotencyKey: key }))
        .status,
    ).toBe(201);
    const [row] = (await storedResults(app, organisationOf(tenant))).slice(-1);

    expect(await purgeExpiredAnswers(app.db, new Date())).toBe(0);
    expect(await purgeExpiredAnswers(app.db, new Date(Date.now() + 25 * 3600_000))).toBeGreaterThanOrEqual(1);

    const purged = await findResult(app.db.pool, row!.id);
    expect(purged).toMatchObject({ bodyHash: row!.bodyHash, httpStatus: 201, body: null });
    expect((await app.db.prisma.requestResult.findUniqueOrThrow({ where: { id: row!.id } })).idempotencyKey).toBe(key);
    expect(await poll(app, tenant, `/v1/data-import/requests/${row!.id}/`)).toMatchObject({
      status: 404,
      body: { code: 'request_not_found' },
    });
  });

  it('schedules the purge as a BullMQ job scheduler when workers start', async () => {
    workers ??= await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const queue = new Queue(purgeAnswersJob.queue, {
      connection: producerConnection(app.config),
      prefix: app.config.QUEUE_PREFIX,
    });
    try {
      const scheduler = await queue.getJobScheduler(purgeAnswersJob.name);
      expect(scheduler).toMatchObject({ every: purgeAnswersJob.everyMs });
    } finally {
      await queue.close();
    }
  });
});

describe('a queued request whose queue refuses the job', () => {
  let app: TestApp;
  let tenant: Tenant;
  let queues: JobQueues;

  beforeAll(async () => {
    queues = createJobQueues(testConfig(), REQUEST_QUEUES);
    app = await startTestApp({ RESULT_WAIT_MS: '300', METRICS_TOKEN, DIRECT_COMMIT: 'off' }, { queues });
    tenant = await createTenant(app);
    // Closed: every add is refused, as when Redis is unreachable.
    await queues.queue(transactionImportJob.queue).close();
  });
  afterAll(async () => {
    await app.close();
    await queues.close();
  });

  it('stores the 503 queue_unavailable instead of deleting the row, and its Location serves it', async () => {
    const account = await importedAccount(app, tenant);

    const refused = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('unqueued')]));

    expect(refused.status).toBe(503);
    const [row] = await storedResults(app, organisationOf(tenant));
    expect(refused.body).toMatchObject({ code: 'queue_unavailable', request_id: row!.id });
    expect(row).toMatchObject({ httpStatus: 503, errorCode: 'queue_unavailable', accountId: account.accountId });
    const polled = await poll(app, tenant, refused.headers.get('location')!);
    expect(polled).toMatchObject({ status: 503, body: refused.body });
    expect(await storedTransactions(app, account.accountId)).toEqual([]);

    // Counted once the supplier's label is read (a look-up after the answer): awaited, not raced.
    const counted = `http_refusals_total{route="/v1/data-import/transactions/create/",code="queue_unavailable",supplier="${tenant.supplier}"} 1`;
    const metrics = await until('the refusal counted', async () => {
      const { body } = await request(app.baseUrl, 'GET', '/metrics', {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      return String(body).includes(counted) ? String(body) : undefined;
    });
    expect(metrics).toContain(counted);
  });

  it('never replaces an answer that is already stored', async () => {
    const account = await importedAccount(app, tenant);
    const key = `finished-${account.external}`;
    await postTransactions(app, tenant.token, envelope(tenant, account, [payment('x')]), { idempotencyKey: key });
    const [row] = (await storedResults(app, organisationOf(tenant))).slice(-1);
    const stored = await findResult(app.db.pool, row!.id);

    await storeAnswerIfPending(app.db.pool, row!.id, ValidationError.single('x', 'other_answer', 'Another answer.'));

    expect(await findResult(app.db.pool, row!.id)).toEqual(stored);
  });
});
