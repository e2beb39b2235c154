// A managed Redis Cluster asks every connection for its ACL user and password, and often for TLS: the
// cluster settings carry them to every node. Proved against a local three-master cluster that requires
// a password and has an application user; TLS is checked on the options built (no certificates here).
import { createRedis, clusterNodeOptions, untilReady } from '../../shared/platform/redis';
import { checkRedis } from '../../shared/platform/preflight';
import { checkRedisEviction } from '../../shared/platform/redis-eviction';
import { request, createTenant, startTestApp, type TestApp } from '../helpers/app';
import { startLocalRedisCluster, type LocalRedisCluster } from '../helpers/redis-cluster';
import { envelope, importedAccount, payment, postTransactions } from '../transactions/transactions.fixture';

const ADMIN_PASSWORD = 'cluster-admin-password-0123';
const APP_USER = { name: 'import-app', password: 'import-app-password-4567' };

describe('on a Redis Cluster that requires an ACL user and password', () => {
  let cluster: LocalRedisCluster;
  let app: TestApp | undefined;

  beforeAll(async () => {
    cluster = await startLocalRedisCluster({ password: ADMIN_PASSWORD, user: APP_USER });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    await cluster?.destroy();
  });

  it('is refused without the credentials and reached with them', async () => {
    const target = {
      REDIS_URL: 'redis://unused',
      REDIS_CLUSTER_NODES: cluster.ports.map((port) => ({ host: '127.0.0.1', port })),
    };
    const anonymous = createRedis(target, 'producer');
    const wrong = createRedis(
      { ...target, REDIS_CLUSTER_USERNAME: APP_USER.name, REDIS_CLUSTER_PASSWORD: 'not-it' },
      'producer',
    );
    const user = createRedis(
      { ...target, REDIS_CLUSTER_USERNAME: APP_USER.name, REDIS_CLUSTER_PASSWORD: APP_USER.password },
      'producer',
    );
    try {
      await untilReady(user);
      expect(user.status).toBe('ready');
      await user.set('{auth-test}:k', 'v');
      expect(await user.get('{auth-test}:k')).toBe('v');
      await expect(anonymous.get('{auth-test}:k')).rejects.toThrow();
      await expect(wrong.get('{auth-test}:k')).rejects.toThrow();
      // The eviction check reads every master through the same credentials.
      expect(
        await checkRedisEviction({
          ...target,
          REDIS_CLUSTER_USERNAME: APP_USER.name,
          REDIS_CLUSTER_PASSWORD: APP_USER.password,
        }),
      ).toBeUndefined();
      // So does the start-up check that Redis answers (before it, a cluster with a password failed start-up).
      const withUser = { ...target, REDIS_CLUSTER_USERNAME: APP_USER.name, REDIS_CLUSTER_PASSWORD: APP_USER.password };
      await expect(checkRedis(withUser)).resolves.toBeUndefined();
      await expect(checkRedis(target)).rejects.toThrow(/not reachable/);
    } finally {
      anonymous.disconnect();
      wrong.disconnect();
      user.disconnect();
    }
  });

  it('queues a transactions request as the application user, and a worker answers it', async () => {
    app = await startTestApp(
      {
        REDIS_CLUSTER_NODES: cluster.nodes,
        REDIS_CLUSTER_USERNAME: APP_USER.name,
        REDIS_CLUSTER_PASSWORD: APP_USER.password,
        RESULT_WAIT_MS: '20000',
      },
      { workers: true },
    );
    const tenant = await createTenant(app);
    const account = await importedAccount(app, tenant);
    const res = await postTransactions(app, tenant.token, envelope(tenant, account, [payment('auth-1')]));
    expect(res.status).toBe(201);
    expect(res.body.results[0].status).toBe('TRANSACTION_ADDED_TO_ACCOUNT');
    expect((await request(app.baseUrl, 'GET', '/readyz')).status).toBe(200);
  }, 90_000);
});

describe('TLS to cluster nodes', () => {
  const target = {
    REDIS_URL: 'redis://unused',
    REDIS_CLUSTER_NODES: [{ host: 'node-1.cache.example', port: 6379 }],
    REDIS_CLUSTER_USERNAME: 'app',
    REDIS_CLUSTER_PASSWORD: 'secret',
  };

  it('connects every node over TLS, by its announced name, with the credentials', () => {
    const options = clusterNodeOptions({ ...target, REDIS_CLUSTER_TLS: true }, { maxRetriesPerRequest: 1 });
    expect(options.redisOptions).toEqual({ maxRetriesPerRequest: 1, username: 'app', password: 'secret', tls: {} });
    const looked: string[] = [];
    options.dnsLookup!('node-2.cache.example', (err, address) => looked.push(`${String(err)} ${address}`));
    expect(looked).toEqual(['null node-2.cache.example']);
  });

  it('stays plain without REDIS_CLUSTER_TLS', () => {
    const options = clusterNodeOptions({ ...target, REDIS_CLUSTER_TLS: false }, {});
    expect(options).toEqual({ redisOptions: { username: 'app', password: 'secret' } });
  });
});
