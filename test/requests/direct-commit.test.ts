// The API commits a burst of transactions itself (shared/requests/direct-commit.ts, decision 0015): a
// request that commits at once leaves no job, one answered row and its run-ledger rows; replays and
// concurrent requests with one Idempotency-Key store it once; a request whose account another
// transaction holds goes to the queue under the same row and is answered by a worker; a refusal and a
// dry run commit only their answer; with DIRECT_COMMIT=off every request is queued.
import type { Queue } from 'bullmq';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { countJobs, openTransactionsQueue, startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import type { Tenant, TestApp } from '../helpers/app';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
  storedTransactions,
} from '../transactions/transactions.fixture';

interface ResultRow {
  id: string;
  httpStatus: number | null;
  jobId: string | null;
}

async function resultRows(app: TestApp, tenant: Tenant): Promise<ResultRow[]> {
  const { rows } = await app.db.pool.query<ResultRow>(
    `SELECT id, http_status AS "httpStatus", job_id AS "jobId" FROM request_results
      WHERE organisation_id = $1 ORDER BY created_at`,
    [organisationOf(tenant)],
  );
  return rows;
}

describe('the API commits transactions itself', () => {
  let app: TestApp;
  let tenant: Tenant;
  let queue: Queue;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({ RESULT_WAIT_MS: '20000' }));
    queue = openTransactionsQueue(app);
  });
  afterAll(async () => {
    await queue.close();
    await app.close();
  });

  it('answers from one transaction: no job, the row answered, the run ledger written, a replay by key replayed', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('DC-1'), payment('DC-2')]);
    const first = await postTransactions(app, tenant.token, body, { idempotencyKey: 'dc-key-1' });
    expect(first.status).toBe(201);
    expect(first.body.results.map((r: { status: string }) => r.status)).toEqual([
      'TRANSACTION_ADDED_TO_ACCOUNT',
      'TRANSACTION_ADDED_TO_ACCOUNT',
    ]);
    expect(await countJobs(queue)).toBe(0);
    const [row] = await resultRows(app, tenant);
    expect(row).toMatchObject({ httpStatus: 201, jobId: null });
    const { rows: ledger } = await app.db.pool.query('SELECT 1 FROM run_ledger WHERE request_id = $1', [row!.id]);
    expect(ledger.length).toBeGreaterThan(0);

    const replay = await postTransactions(app, tenant.token, body, { idempotencyKey: 'dc-key-1' });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);
    const other = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('DC-3')]), {
      idempotencyKey: 'dc-key-1',
    });
    expect(other.status).toBe(422);
    expect((await storedTransactions(app, account.accountId)).map((t) => t.transactionId).sort()).toEqual([
      'DC-1',
      'DC-2',
    ]);
    expect(await countJobs(queue)).toBe(0);
  });

  it('stores a request once when the same key arrives several times at once', async () => {
    const account = await importedAccount(app, tenant);
    const body = envelope(tenant, account, [payment('DC-SAME')]);
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => postTransactions(app, tenant.token, body, { idempotencyKey: 'dc-same-key' })),
    );
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') !== 'true')).toHaveLength(1);
    expect(await storedTransactions(app, account.accountId)).toHaveLength(1);
    const { rows } = await app.db.pool.query(
      'SELECT 1 FROM request_results WHERE organisation_id = $1 AND idempotency_key = $2',
      [organisationOf(tenant), 'dc-same-key'],
    );
    expect(rows).toHaveLength(1);
  });

  it('stores a refusal and a dry run as answers, writing no transaction', async () => {
    const account = await importedAccount(app, tenant);
    const before = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('DC-OLD', { transaction_date: '2019-01-01' })]),
      { query: 'force_add_to_current_statement=false', idempotencyKey: 'dc-refused' },
    );
    expect(before.status).toBe(400);
    expect(before.body.status).toBe('TRANSACTION_IMPORT_ERROR');
    const again = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('DC-OLD', { transaction_date: '2019-01-01' })]),
      { query: 'force_add_to_current_statement=false', idempotencyKey: 'dc-refused' },
    );
    expect(again.status).toBe(400);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const dry = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('DC-DRY')], { dry_run: true }),
    );
    expect(dry.status).toBe(201);
    expect(await storedTransactions(app, account.accountId)).toHaveLength(0);
    expect(await countJobs(queue)).toBe(0);
  });

  it('hands a request whose account another transaction holds to the queue, under the same row', async () => {
    const account = await importedAccount(app, tenant);
    const holder = await app.db.pool.connect();
    let workers: RunningWorkers | undefined;
    try {
      await holder.query('BEGIN');
      await holder.query('SELECT id FROM accounts WHERE id = $1 FOR UPDATE', [account.accountId]);
      const answer = postTransactions(app, tenant.token, envelope(tenant, account, [payment('DC-HELD')]), {
        idempotencyKey: 'dc-held',
      });
      // The direct transaction could not lock the account: the request is queued, its row pending.
      await until('the request queued', async () => ((await countJobs(queue)) === 1 ? true : undefined));
      workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
      await holder.query('COMMIT');
      const answered = await answer;
      expect(answered.status).toBe(201);
      expect(answered.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
      const held = (await resultRows(app, tenant)).filter((r) => r.httpStatus === 201);
      const job = await queue.getJob(held.at(-1)!.id);
      expect(job?.id).toBe(held.at(-1)!.id);
      expect(await storedTransactions(app, account.accountId)).toHaveLength(1);
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      holder.release();
      await workers?.stop();
    }
  });
});

describe('with DIRECT_COMMIT=off', () => {
  it('queues every transactions request', async () => {
    const { app, tenant } = await startTenantApp({ DIRECT_COMMIT: 'off', RESULT_WAIT_MS: '20000' });
    const queue = openTransactionsQueue(app);
    const workers = await startWorkers({ config: app.config, db: app.db, logger: app.logger });
    try {
      const account = await importedAccount(app, tenant);
      const answer = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('DC-Q')]));
      expect(answer.status).toBe(201);
      expect(await countJobs(queue)).toBe(1);
    } finally {
      await workers.stop();
      await queue.close();
      await app.close();
    }
  });
});
