// The service on a Redis Cluster: every queue key shares the QUEUE_PREFIX hash tag (BullMQ's scripts
// touch several keys of a queue at once, which a cluster allows only within one slot), and the other
// Redis uses (rate limits, heartbeats, staff sessions) are single-key. Proved against a local
// three-master cluster.
import { promisify } from 'node:util';
import type { SessionData } from 'express-session';
import { Cluster } from 'ioredis';
import { RedisSessionStore } from '../../api/staff/redis-session-store';
import { createRedis, untilReady } from '../../shared/platform/redis';
import { testConfig } from '../helpers/context';
import { request, createTenant, startTestApp, type TestApp } from '../helpers/app';
import { startLocalRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

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
    app = await startTestApp({ REDIS_CLUSTER_NODES: cluster.nodes, RESULT_WAIT_MS: '20000' }, { workers: true });
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

    // Every key the service wrote lives in the one slot of the prefix's hash tag.
    const client = new Cluster(cluster.ports.map((port) => ({ host: '127.0.0.1', port })));
    try {
      const prefix = app.config.QUEUE_PREFIX;
      const slot = Number(await client.call('CLUSTER', 'KEYSLOT', prefix));
      const keys = (await Promise.all(client.nodes('master').map((node) => node.keys(`${prefix}*`)))).flat();
      expect(keys).toEqual(expect.arrayContaining([`${prefix}:transactions:meta`, `${prefix}:worker-heartbeats`]));
      expect(keys.some((k) => k.startsWith(`${prefix}:rl:org:`))).toBe(true);
      const slots = await Promise.all(keys.map(async (k) => Number(await client.call('CLUSTER', 'KEYSLOT', k))));
      expect(new Set(slots)).toEqual(new Set([slot]));
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
