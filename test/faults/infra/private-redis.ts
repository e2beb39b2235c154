// A redis-server of the fault suite's own on a free loopback port, configured as the deployment runs
// it (docker-compose: AOF on, noeviction), so a restart keeps the queues the way production's would.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { Redis } from 'ioredis';
import { freePort, until } from './ports';

export interface PrivateRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  /** SIGTERM (redis flushes its AOF and exits) or SIGKILL (a crash: up to a second of writes may be lost). */
  stop(signal?: 'SIGTERM' | 'SIGKILL'): Promise<void>;
  destroy(): Promise<void>;
}

export async function createPrivateRedis(): Promise<PrivateRedis> {
  const dir = mkdtempSync('/tmp/faults-redis-');
  const port = await freePort();
  let child: ChildProcess | undefined;

  const ping = async () => {
    const probe = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      return (await probe.ping()) === 'PONG' ? true : undefined;
    } finally {
      probe.disconnect();
    }
  };

  const self: PrivateRedis = {
    port,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn(
        'redis-server',
        [
          '--port',
          String(port),
          '--bind',
          '127.0.0.1',
          '--dir',
          dir,
          '--save',
          '',
          '--appendonly',
          'yes',
          '--appendfsync',
          'everysec',
          '--maxmemory-policy',
          'noeviction',
        ],
        { stdio: 'ignore' },
      );
      await until('the private redis-server to answer PING', ping, 15_000);
    },
    async stop(signal = 'SIGTERM') {
      const c = child;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill(signal);
      await exited;
      child = undefined;
    },
    async destroy() {
      await self.stop('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await self.start();
  return self;
}
