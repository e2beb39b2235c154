// A Redis that evicts keys would silently lose queued requests: the API and the worker refuse to start
// on one, saying which setting to change. Proved against private redis-servers with the policies
// managed services ship.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { checkRedisEviction } from '../../shared/platform/redis-eviction';
import { testDatabaseUrl } from '../helpers/context';
import { startLocalRedis, type LocalRedis } from '../helpers/redis-server';

const ROOT = path.join(__dirname, '../..');

function runEntryPoint(entry: string, redisUrl: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: testDatabaseUrl,
      REDIS_URL: redisUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      QUEUE_PREFIX: '{eviction-test}',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // A process that does not refuse would run on: end it, so that the failing test leaves nothing behind.
  const guard = setTimeout(() => child.kill('SIGKILL'), 45_000);
  child.once('exit', () => clearTimeout(guard));
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stderr: string }>((resolve) =>
    child.on('exit', (code) => resolve({ code, stderr })),
  );
}

describe('a Redis that evicts keys', () => {
  let lru: LocalRedis;
  beforeAll(async () => {
    lru = await startLocalRedis(['--maxmemory-policy', 'allkeys-lru', '--maxmemory', '64mb']);
  });
  afterAll(() => lru?.stop());

  it.each(['api/main.ts', 'worker/main.ts'])(
    '%s refuses to start, naming maxmemory-policy and the fix',
    async (entry) => {
      const { code, stderr } = await runEntryPoint(entry, lru.url);
      expect(code).toBe(1);
      expect(stderr).toMatch(/maxmemory-policy allkeys-lru on 127\.0\.0\.1:\d+/);
      expect(stderr).toMatch(/set maxmemory-policy to noeviction/);
    },
    60_000,
  );

  it('is found through INFO memory when CONFIG is refused', async () => {
    const noConfig = await startLocalRedis(['--maxmemory-policy', 'volatile-lru', '--rename-command', 'CONFIG', '']);
    try {
      await expect(checkRedisEviction({ REDIS_URL: noConfig.url, REDIS_CLUSTER_NODES: undefined })).rejects.toThrow(
        /maxmemory-policy volatile-lru/,
      );
    } finally {
      await noConfig.stop();
    }
  });
});

describe('a Redis that keeps its keys', () => {
  it('passes with noeviction, and warns (without refusing) when the policy cannot be read', async () => {
    const plain = await startLocalRedis(['--maxmemory-policy', 'noeviction']);
    // As a managed service's application user may be: neither CONFIG nor INFO allowed.
    const closed = await startLocalRedis([
      '--user',
      'app',
      'on',
      '>app-password',
      '~*',
      '&*',
      '+@all',
      '-config',
      '-info',
    ]);
    try {
      expect(await checkRedisEviction({ REDIS_URL: plain.url, REDIS_CLUSTER_NODES: undefined })).toBeUndefined();
      const asApp = closed.url.replace('redis://', 'redis://app:app-password@');
      expect(await checkRedisEviction({ REDIS_URL: asApp, REDIS_CLUSTER_NODES: undefined })).toMatch(
        /could not be read on 127\.0\.0\.1:\d+ .*make sure it is noeviction/,
      );
    } finally {
      await plain.stop();
      await closed.stop();
    }
  });
});
