// Configuration added for running on several processes and on a Redis Cluster: parsed once at boot,
// and a wrong value stops the boot with a line naming the variable.
import { loadConfig } from '../../shared/platform/config';

describe('scale configuration', () => {
  it('parses Redis Cluster seed nodes, IPv6 ones included, and leaves them unset by default', () => {
    expect(loadConfig({}).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(loadConfig({ REDIS_CLUSTER_NODES: ' ' }).REDIS_CLUSTER_NODES).toBeUndefined();
    expect(loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002' }).REDIS_CLUSTER_NODES).toEqual([
      { host: 'redis-a', port: 7000 },
      { host: '10.0.0.2', port: 7001 },
      { host: '::1', port: 7002 },
    ]);
  });

  it.each([
    ['a node without a port', 'redis-a'],
    ['a port out of range', 'redis-a:70000'],
    ['a URL instead of host:port', 'redis://redis-a:7000'],
    ['an empty entry', 'redis-a:7000,,redis-b:7000'],
    ['more than 64 nodes', Array.from({ length: 65 }, (_, i) => `n${i}:7000`).join(',')],
  ])('refuses %s in REDIS_CLUSTER_NODES', (_what, value) => {
    expect(() => loadConfig({ REDIS_CLUSTER_NODES: value })).toThrow(
      /REDIS_CLUSTER_NODES: expected 1 to 64 comma-separated host:port seed nodes/,
    );
  });

  it('runs one API and one worker child by default, and refuses counts outside 1–64', () => {
    expect(loadConfig({})).toMatchObject({
      API_PROCESSES: 1,
      WORKER_PROCESSES: 1,
      TOKEN_CACHE_SIZE: 10_000,
      TOKEN_CACHE_SECONDS: 60,
      ORG_RATE_LIMIT_LEASE_MAX: 100,
    });
    expect(() => loadConfig({ API_PROCESSES: '0' })).toThrow(/API_PROCESSES/);
    expect(() => loadConfig({ WORKER_PROCESSES: '65' })).toThrow(/WORKER_PROCESSES/);
    expect(() => loadConfig({ ORG_RATE_LIMIT_LEASE_MAX: '0' })).toThrow(/ORG_RATE_LIMIT_LEASE_MAX/);
  });

  it('refuses stream budgets of all replicas that could pin more than half of DB_SERVER_CONNECTIONS', () => {
    // Unset: no check. 3 replicas × 1 API × (6 + 2) = 24 streams: 48 server connections are enough.
    expect(loadConfig({ DEPLOYMENT_REPLICAS: '30' }).DB_SERVER_CONNECTIONS).toBeUndefined();
    expect(loadConfig({ DB_SERVER_CONNECTIONS: '48', DEPLOYMENT_REPLICAS: '3' })).toMatchObject({
      DB_SERVER_CONNECTIONS: 48,
      DEPLOYMENT_REPLICAS: 3,
    });
    expect(() => loadConfig({ DB_SERVER_CONNECTIONS: '47', DEPLOYMENT_REPLICAS: '3' })).toThrow(
      /DB_SERVER_CONNECTIONS: the API processes of all replicas .* more than half of DB_SERVER_CONNECTIONS/,
    );
    // npm start's API children count too; smaller stream budgets fit.
    expect(() => loadConfig({ DB_SERVER_CONNECTIONS: '48', DEPLOYMENT_REPLICAS: '3', API_PROCESSES: '2' })).toThrow(
      /DB_SERVER_CONNECTIONS/,
    );
    const fits = { DB_SERVER_CONNECTIONS: '20', DEPLOYMENT_REPLICAS: '5', LIST_STREAMS_PER_PROCESS: '1' };
    expect(loadConfig({ ...fits, STAFF_STREAMS_PER_PROCESS: '1' }).DB_SERVER_CONNECTIONS).toBe(20);
  });
});
