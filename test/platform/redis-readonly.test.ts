// A managed Redis's fail-over seen through its one endpoint: the endpoint names the new master for new
// connections, while connections already open still reach the old master, now a replica, which answers
// writes with READONLY and ends blocked reads with UNBLOCKED. The endpoint is a TCP proxy here, in front
// of two private redis-servers, master and replica, whose roles the test swaps.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { createTenant, startTestApp, type TestApp } from '../helpers/app';
import { startLocalRedis, type LocalRedis } from '../helpers/redis-server';
import { until } from '../helpers/until';
import { envelope, importedAccount, payment } from '../transactions/transactions.fixture';
import { importToTheEnd } from './platform.fixture';

/** Forwards each new connection to `target.port` as it is when the connection opens. */
async function startEndpoint(target: { port: number }) {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, '127.0.0.1');
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => undefined);
      s.on('close', () => (sockets.delete(s), client.destroy(), upstream.destroy()));
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as { port: number }).port}`,
    /** Connections open through the endpoint to `port`. */
    openTo: (port: number) => [...sockets].filter((s) => s.remotePort === port).length,
    close: async () => {
      sockets.forEach((s) => s.destroy());
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

async function command(port: number, ...args: string[]): Promise<unknown> {
  const redis = new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 0 });
  try {
    return await redis.call(args[0]!, ...args.slice(1));
  } finally {
    redis.disconnect();
  }
}

const inSync = async (replica: number) =>
  /master_link_status:up/.test(String(await command(replica, 'INFO', 'replication'))) ? true : undefined;

describe('a managed Redis endpoint after a fail-over', () => {
  let first: LocalRedis;
  let second: LocalRedis;
  let endpoint: Awaited<ReturnType<typeof startEndpoint>>;
  let app: TestApp | undefined;
  // A replica's full sync writes an RDB file: into a folder of the test's, not the working directory.
  const dir = mkdtempSync(path.join(tmpdir(), 'redis-readonly-'));

  beforeAll(async () => {
    first = await startLocalRedis(['--dir', dir]);
    second = await startLocalRedis(['--dir', dir]);
    await command(second.port, 'REPLICAOF', '127.0.0.1', String(first.port));
    await until('the replica in sync', () => inSync(second.port));
  });

  afterAll(async () => {
    await app?.close();
    await endpoint?.close();
    await second?.stop();
    await first?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request after it once: a connection left on the demoted master reconnects on READONLY', async () => {
    const target = { port: first.port };
    endpoint = await startEndpoint(target);
    // Through the queue (DIRECT_COMMIT=off): the imports are what exercises the connections to Redis.
    app = await startTestApp(
      { REDIS_URL: endpoint.url, RESULT_WAIT_MS: '5000', DIRECT_COMMIT: 'off' },
      { workers: true },
    );
    const running = app;
    const tenant = await createTenant(running);
    const account = await importedAccount(running, tenant);
    const body = (n: number) => envelope(tenant, account, [payment(`ro-${n}-a`), payment(`ro-${n}-b`)]);
    const before = await importToTheEnd(running, tenant, body(0), `readonly-${account.external}-0`);
    expect(before.final.status).toBe(201);

    // The fail-over: the replica becomes the master, the old master its replica, the endpoint moves.
    await command(second.port, 'REPLICAOF', 'NO', 'ONE');
    await command(first.port, 'REPLICAOF', '127.0.0.1', String(second.port));
    target.port = second.port;
    await until('the old master in sync as a replica', () => inSync(first.port));
    expect(endpoint.openTo(first.port)).toBeGreaterThan(0);

    const after = [];
    for (let n = 1; n <= 3; n++)
      after.push(await importToTheEnd(running, tenant, body(n), `readonly-${account.external}-${n}`, 80));

    expect(after.map((o) => [o.final.status, o.final.body?.code])).toEqual([
      [201, undefined],
      [201, undefined],
      [201, undefined],
    ]);
    const stored = await running.db.prisma.transaction.findMany({
      where: { accountId: account.accountId },
      select: { transactionId: true },
    });
    expect(stored.map((t) => t.transactionId).sort()).toEqual(
      ['ro-0-a', 'ro-0-b', 'ro-1-a', 'ro-1-b', 'ro-2-a', 'ro-2-b', 'ro-3-a', 'ro-3-b'].sort(),
    );
  }, 120_000);
});
