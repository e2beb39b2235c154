// A throwaway redis-server on a free loopback port, started with the arguments a test needs (an
// evicting policy, a renamed command): the machine's own Redis is never touched.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { until } from './until';

export interface LocalRedis {
  port: number;
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const port = (srv.address() as { port: number }).port;
  await new Promise((resolve) => srv.close(resolve));
  return port;
}

/** `args` are extra redis-server arguments; `password` is the default user's, for the readiness probe. */
export async function startLocalRedis(args: string[] = [], password?: string): Promise<LocalRedis> {
  const port = await freePort();
  const server = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
    { stdio: 'ignore' },
  );
  const exited = new Promise((resolve) => server.once('exit', resolve));
  const stop = async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
    await exited;
  };
  const probe = new Redis(port, '127.0.0.1', {
    lazyConnect: true,
    password,
    maxRetriesPerRequest: 0,
    retryStrategy: () => 50,
  });
  probe.on('error', () => undefined);
  try {
    await until(`redis-server on ${port}`, async () =>
      (await probe.ping().catch(() => '')) === 'PONG' ? true : undefined,
    );
  } catch (err) {
    await stop();
    throw err;
  } finally {
    probe.disconnect();
  }
  return { port, url: `redis://127.0.0.1:${port}`, stop };
}
