// The service on a Redis Cluster: each queue's keys share a hash tag of their own (BullMQ's scripts
// touch several keys of one queue at once, which a cluster allows only within one slot, and never two
// queues' keys), so the queues spread over the masters; the other Redis uses (rate limits, heartbeats,
// staff sessions) are single-key under QUEUE_PREFIX. Proved against a local three-master cluster.
import { promisify } from 'node:util';
import type { SessionData } from 'express-session';
import { Cluster } from 'ioredis';
import { RedisSessionStore } from '../../api/staff/redis-session-store';
import { REQUEST_QUEUES } from '../../shared/catalog/jobs';
import { queuePrefix } from '../../shared/platform/queues';
import { createRedis, untilReady } from '../../shared/platform/redis';
import { testConfig, uniqueSuffix } from '../helpers/context';
import { request, createTenant, startTestApp, type TestApp } from '../helpers/app';
import { startLocalRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

/**
 * A QUEUE_PREFIX whose request queues' hash tags do not all fall on one master (with three masters a
 * random prefix does so one time in nine), so that the test shows the spread every time it runs.
 */
async function spreadPrefix(cluster: LocalRedisCluster): Promise<string> {
  const client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
  try {
    const ranges = (await client.call('CLUSTER', 'SLOTS')) as [number, number, [string, number]][];
    const masterOf = (slot: number) => ranges.find(([from, to]) => slot >= from && slot <= to)?.[2][1];
    for (let tries = 0; tries < 50; tries++) {
      const prefix = `{cluster-${uniqueSuffix()}}`;
      const masters = await Promise.all(
        REQUEST_QUEUES.map(async (q) =>
          masterOf(Number(await client.call('CLUSTER', 'KEYSLOT', `{${prefix.slice(1, -1)}:${q}}`))),
        ),
      );
      if (new Set(masters).size > 1) return prefix;
    }
    throw new Error('no prefix spreads the queues over two masters in 50 tries');
  } finally {
    client.disconnect();
  }
}

describe('on a three-node Redis Cluster', () => {
  let cluster: LocalRedisCluster;
  let app: TestApp | undefined;

  beforeAll(async () => {
    cluster = await startLocalRedisCluster();
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await cluster?.destroy();
  });

  it('queues a transactions request, a worker processes it, and the answer and the row come back', async () => {
    app = await startTestApp(
      { REDIS_CLUSTER_NODES: cluster.nodes, RESULT_WAIT_MS: '20000', QUEUE_PREFIX: await spreadPrefix(cluster) },
      { workers: true },
    );
    const tenant = await createTenant(app);
    const account = await importedAccount(app, tenant);

    const res = await postTransactions(
      app,
      tenant.token,
      envelope(tenant, account, [payment('cluster-1'), payment('cluster-2')]),
      {
        idempotencyKey: 'cluster-run',
      },
    );

    expect(res.status).toBe(201);
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual([
      'TRANSACTION_ADDED_TO_ACCOUNT',
      'TRANSACTION_ADDED_TO_ACCOUNT',
    ]);
    const stored = await app.db.prisma.transaction.findMany({
      where: { accountId: account.accountId },
      select: { transactionId: true },
    });
    expect(stored.map((t) => t.transactionId).sort()).toEqual(['cluster-1', 'cluster-2']);
    // The organisation's rate limit counted in the cluster (a failing store would let the request
    // through without the header), and the worker's heartbeat is visible to the API.
    expect(res.headers.get('ratelimit')).toMatch(/r=\d+/);
    expect((await request(app.baseUrl, 'GET', '/readyz')).status).toBe(200);

    // Each queue's keys live in the one slot of its own hash tag; the queues are spread over the masters.
    const client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
    try {
      const running = app;
      const slotOf = async (key: string) => Number(await client.call('CLUSTER', 'KEYSLOT', key));
      // Connected (and the masters known) before they are listed.
      await client.call('CLUSTER', 'INFO');
      const byMaster = await Promise.all(
        client.nodes('master').map(async (node) => ({
          node: `${node.options.host}:${node.options.port}`,
          keys: (await node.keys('*')).filter((k) => k.includes(`${running.config.QUEUE_PREFIX.slice(1, -1)}`)),
        })),
      );
      const queueKeys = new Map<string, string[]>();
      for (const queue of REQUEST_QUEUES) {
        const prefix = queuePrefix(running.config, queue);
        expect(prefix).toBe(`{${running.config.QUEUE_PREFIX.slice(1, -1)}:${queue}}`);
        queueKeys.set(
          queue,
          byMaster.flatMap((m) => m.keys.filter((k) => k.startsWith(`${prefix}:`))),
        );
        // Every queue has keys: at least its Worker's stalled-check marker.
        expect({ queue, keys: queueKeys.get(queue)!.length > 0 }).toEqual({ queue, keys: true });
        const slots = new Set(await Promise.all(queueKeys.get(queue)!.map(slotOf)));
        expect({ queue, slots: [...slots] }).toEqual({ queue, slots: [await slotOf(prefix)] });
      }
      expect(queueKeys.get('transactions')).toEqual(
        expect.arrayContaining([`${queuePrefix(running.config, 'transactions')}:transactions:meta`]),
      );
      // The request queues' keys are on more than one master (printed for docs/performance.md).
      const mastersWithQueues = byMaster.filter((m) =>
        m.keys.some((k) => REQUEST_QUEUES.some((q) => k.startsWith(`${queuePrefix(running.config, q)}:`))),
      );
      console.log(
        'queue keys per master:',
        JSON.stringify(
          byMaster.map((m) => ({
            node: m.node,
            queues: REQUEST_QUEUES.filter((q) =>
              m.keys.some((k) => k.startsWith(`${queuePrefix(running.config, q)}:`)),
            ),
          })),
        ),
      );
      expect(mastersWithQueues.length).toBeGreaterThan(1);
      // The keys outside BullMQ stay under QUEUE_PREFIX, single-key each.
      const prefix = running.config.QUEUE_PREFIX;
      const all = byMaster.flatMap((m) => m.keys);
      expect(all).toContain(`${prefix}:worker-heartbeats`);
      expect(all.some((k) => k.startsWith(`${prefix}:rl:org:`))).toBe(true);
    } finally {
      client.disconnect();
    }
  }, 90_000);

  it('keeps staff sessions: stored, read, extended and ended through the cluster client', async () => {
    const config = testConfig({ REDIS_CLUSTER_NODES: cluster.nodes });
    const redis = createRedis(config, 'producer');
    await untilReady(redis);
    try {
      const store = new RedisSessionStore(redis, `${config.QUEUE_PREFIX}:staff-session:`, 60_000);
      const sess = {
        cookie: { originalMaxAge: 60_000, expires: new Date(Date.now() + 60_000) },
        user: 'alice',
      } as unknown as SessionData;
      const get = promisify(store.get.bind(store)) as (sid: string) => Promise<SessionData | null>;
      await promisify(store.set.bind(store))('sid-1', sess);
      expect(await get('sid-1')).toMatchObject({ user: 'alice' });
      await promisify(store.touch.bind(store))('sid-1', sess);
      expect(await redis.pttl(store.key('sid-1'))).toBeGreaterThan(50_000);
      await promisify(store.destroy.bind(store))('sid-1');
      expect(await get('sid-1')).toBeNull();
    } finally {
      redis.disconnect();
    }
  });

  // BullMQ closes only the copies it makes of a client it is given: a Worker's or a Queue's own
  // connection left open would reconnect for ever once the cluster goes (and keep the process alive).
  it('closes every connection it opened on the cluster when it stops', async () => {
    expect(app).toBeDefined();
    expect(await cluster.connectedClients()).toBeGreaterThan(0);
    const stopping = app!;
    app = undefined;
    await stopping.close();
    await until('no client connection left on the cluster', async () =>
      (await cluster.connectedClients()) === 0 ? true : undefined,
    );
  });
});
