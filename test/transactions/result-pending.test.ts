import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import { until } from '../helpers/until';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedResults,
  storedTransactions,
} from './transactions.fixture';

describe('POST /v1/data-import/transactions/create/ when the workers are slower than the wait', () => {
  let app: TestApp;
  let tenant: Tenant;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '200', DIRECT_COMMIT: 'off' })));
  afterAll(async () => {
    await workers?.stop();
    await app.close();
  });

  it('answers 503 result_pending with Retry-After and the request to poll, keeps the work queued, and replays the 201 to a retry with the same key', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('slow')]);
    const key = `pending-${account.external}`;

    const pending = await postTransactions(app, tenant.token, body, { idempotencyKey: key });

    expect(pending.status).toBe(503);
    expect(pending.headers.get('retry-after')).toBe('2');
    const [row] = await storedResults(app, organisationOf(tenant));
    expect(pending.body).toEqual({
      detail: expect.any(String) as unknown,
      code: 'result_pending',
      request_id: row!.id,
    });
    expect(pending.headers.get('location')).toBe(`/v1/data-import/requests/${row!.id}/`);
    expect(row).toMatchObject({ idempotencyKey: key, httpStatus: null });
    expect(await storedTransactions(app, account.accountId)).toEqual([]);

    workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    await until('the queued request to finish', async () => {
      const [done] = await storedResults(app, organisationOf(tenant));
      return done?.httpStatus ?? undefined;
    });
    const retry = await postTransactions(app, tenant.token, body, { idempotencyKey: key });

    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const rows = await storedTransactions(app, account.accountId);
    expect(rows.map((r) => r.transactionId)).toEqual(['slow']);
    expect(retry.body.results).toEqual([
      {
        status: 'TRANSACTION_ADDED_TO_ACCOUNT',
        transaction_data: payment('slow', { amount: '71.00' }),
        added_transaction_id: Number(rows[0]!.id),
      },
    ]);
    expect(await storedResults(app, organisationOf(tenant))).toHaveLength(1);
  });
});
