// A Redis Cluster master fails over to its replica while transactions are being imported through the
// service: every request still gets its final answer, and every transaction is stored exactly once.
// The fail-over is CLUSTER FAILOVER on the replica of the master that holds the transactions queue's
// slot (its own hash tag on a cluster, shared/platform/queues.ts `queuePrefix`).
import { queuePrefix } from '../../shared/platform/queues';
import { transactionImportJob } from '../../shared/transactions/transaction.job';
import { request, createTenant, startTestApp, type TestApp } from '../helpers/app';
import { startLocalRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment, type TestAccount } from '../transactions/transactions.fixture';
import { importToTheEnd, type Outcome } from './platform.fixture';

const LANES = 4;
const PER_REQUEST = 20;
/** Each lane sends at most this many requests (a bound, not a target: lanes stop after the fail-over). */
const MAX_PER_LANE = 40;
/** Requests each lane sends once the fail-over is complete. */
const AFTER_FAILOVER = 2;

describe('a Redis Cluster fail-over in the middle of an import', () => {
  let cluster: LocalRedisCluster;
  let app: TestApp | undefined;

  beforeAll(async () => {
    cluster = await startLocalRedisCluster(undefined, { replicas: 1 });
  }, 90_000);

  afterAll(async () => {
    await app?.close();
    await cluster?.destroy();
  });

  it('answers every request once and stores every transaction once', async () => {
    app = await startTestApp({ REDIS_CLUSTER_NODES: cluster.nodes, RESULT_WAIT_MS: '5000' }, { workers: true });
    const running = app;
    const tenant = await createTenant(running);
    const accounts: TestAccount[] = [];
    for (let lane = 0; lane < LANES; lane++) accounts.push(await importedAccount(running, tenant));

    const answered: Outcome[] = [];
    const progress: { failedOver?: { from: number; to: number }; sentBefore: number } = { sentBefore: 0 };
    const lane = async (index: number) => {
      const account = accounts[index]!;
      let afterwards = 0;
      for (let n = 0; n < MAX_PER_LANE && afterwards < AFTER_FAILOVER; n++) {
        if (progress.failedOver) afterwards++;
        else progress.sentBefore++;
        const transactions = Array.from({ length: PER_REQUEST }, (_, i) => payment(`fo-${index}-${n}-${i}`));
        const key = `failover-${account.external}-${n}`;
        answered.push(await importToTheEnd(running, tenant, envelope(tenant, account, transactions), key));
      }
    };
    const lanes = Array.from({ length: LANES }, (_, i) => lane(i));
    // Fail over once the import is under way: some requests answered, the lanes still sending.
    await until('the first answers', () => (answered.length >= LANES ? true : undefined), 60_000);
    const failedOver = await cluster.failOver(queuePrefix(running.config, transactionImportJob.queue));
    progress.failedOver = failedOver;
    await Promise.all(lanes);

    expect(failedOver.to).not.toBe(failedOver.from);
    expect(progress.sentBefore).toBeLessThan(LANES * MAX_PER_LANE);
    const finals = answered.map((o) => o.final);
    expect(finals.filter((f) => f.status !== 201).map((f) => [f.status, f.body])).toEqual([]);
    for (const f of finals) {
      expect(new Set(f.body.results.map((r: { status: string }) => r.status))).toEqual(
        new Set(['TRANSACTION_ADDED_TO_ACCOUNT']),
      );
    }
    const accountIds = accounts.map((a) => a.accountId);
    const stored = await running.db.prisma.transaction.count({ where: { accountId: { in: accountIds } } });
    const distinct = await running.db.prisma.transaction.groupBy({
      by: ['accountId', 'transactionId'],
      where: { accountId: { in: accountIds } },
    });
    expect(stored).toBe(answered.length * PER_REQUEST);
    expect(distinct).toHaveLength(stored);
    const results = await running.db.prisma.requestResult.count({
      where: { idempotencyKey: { in: answered.map((o) => o.key) } },
    });
    expect(results).toBe(answered.length);
    // The service still works on the new master: readiness sees Redis and the workers' heartbeats.
    await until('readiness after the fail-over', async () =>
      (await request(running.baseUrl, 'GET', '/readyz')).status === 200 ? true : undefined,
    );
    // And it leaves nothing behind: every connection it opened, on the old master too, is closed.
    app = undefined;
    await running.close();
    await until('no client connection left on the cluster', async () =>
      (await cluster.connectedClients()) === 0 ? true : undefined,
    );
  }, 240_000);
});
