import { UnrecoverableError, Worker } from 'bullmq';
import { UnavailableError } from '../../shared/platform/errors';
import { blockingConnection } from '../../shared/platform/queues';
import { storeAnswerIfPending } from '../../shared/requests/request-result.repository';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import { request, settled, type Tenant, type TestApp } from '../helpers/app';
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

describe('a queued request whose job failed without storing an answer', () => {
  let app: TestApp;
  let tenant: Tenant;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '300', DIRECT_COMMIT: 'off' })));
  afterAll(async () => {
    await workers?.stop();
    await app.close();
  });

  it('is run again when the client retries with the same Idempotency-Key', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('lost-1')]);
    const key = `stuck-${account.external}`;

    // A worker that dies on the job without completing the request row (its final attempt could not
    // reach the database, say): the job ends failed, the row stays pending.
    let failedJobId: string | undefined;
    const failed = new Promise<void>((resolve) => {
      const breaking = new Worker(
        transactionImportJob.queue,
        async () => {
          throw new UnrecoverableError('database unreachable on the last attempt');
        },
        { connection: blockingConnection(app.config), prefix: app.config.QUEUE_PREFIX },
      );
      breaking.on('failed', (job) => {
        failedJobId = job?.id;
        void breaking.close().then(resolve);
      });
    });
    const first = await postTransactions(app, tenant.token, body, { idempotencyKey: key });
    expect(first.status).toBe(503);
    await failed;
    const [row] = await storedResults(app, organisationOf(tenant));
    expect(row).toMatchObject({ idempotencyKey: key, httpStatus: null });
    expect(failedJobId).toBe(row!.id);

    workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const retry = await settled(
      app.baseUrl,
      tenant.token,
      await postTransactions(app, tenant.token, body, { idempotencyKey: key }),
    );

    expect(retry.status).toBe(201);
    expect(retry.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
    expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId)).toEqual(['lost-1']);
  });

  it('refuses an unusable Idempotency-Key before anything is stored', async () => {
    const account = await importedAccount(app, tenant);
    const res = await request(app.baseUrl, 'POST', '/v1/data-import/payment-instruction/create/', {
      token: tenant.token,
      headers: { 'idempotency-key': 'x'.repeat(256) },
      body: {
        import_supplier: tenant.supplier,
        external_account_number: account.external,
        vendor: 'STRIPE',
        reference: 'pm_anything',
        type: 'CARD',
      },
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { attr: 'Idempotency-Key', code: 'invalid_idempotency_key', detail: expect.any(String) },
    ]);
  });

  it('is run again when its job completed doing nothing because the API had answered 503 queue_unavailable', async () => {
    // Redis took the job but its reply was lost: the API stored 503 queue_unavailable, so the job,
    // when it ran, found the request answered and did nothing. The retry with the key must run it.
    await workers?.stop();
    workers = undefined;
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('taken-1')]);
    const key = `taken-${account.external}`;
    expect((await postTransactions(app, tenant.token, body, { idempotencyKey: key })).status).toBe(503);
    const [row] = (await storedResults(app, organisationOf(tenant))).filter((r) => r.idempotencyKey === key);
    await storeAnswerIfPending(
      app.db.pool,
      row!.id,
      new UnavailableError('queue_unavailable', 'The work queue is unavailable.', 2, row!.id),
    );

    workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    const queue = openTransactionsQueue(app);
    try {
      await until('the no-op job to complete', async () =>
        (await (await queue.getJob(row!.id))?.getState()) === 'completed' ? true : undefined,
      );
    } finally {
      await queue.close();
    }
    expect(await storedTransactions(app, account.accountId)).toEqual([]);

    const retry = await settled(
      app.baseUrl,
      tenant.token,
      await postTransactions(app, tenant.token, body, { idempotencyKey: key }),
    );

    expect(retry.status).toBe(201);
    expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId)).toEqual(['taken-1']);
  });
});
