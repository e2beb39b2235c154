// No Docker engine runs here, so the deployment files are checked by reading them: what compose
// publishes and passes, and what the image carries and runs as.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';
import { ConfigSchema } from '../../shared/platform/config';

const ROOT = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  ports?: string[];
  environment?: Record<string, string>;
  command?: string[];
  healthcheck?: { test: string[] };
}
const compose = parse(read('docker-compose.yml')) as { services: Record<string, Service> };
const services = compose.services;

describe('docker-compose.yml', () => {
  it('publishes PostgreSQL, Redis, the staff port and worker metrics on 127.0.0.1 only', () => {
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => ({ name, p })));
    expect(published.length).toBeGreaterThan(0);
    for (const { name, p } of published) {
      if (name === 'api' && p === '8000:8000') continue;
      expect({ name, p: p.startsWith('127.0.0.1:') }).toEqual({ name, p: true });
    }
  });

  it('protects PostgreSQL and Redis with passwords that have no fallback value', () => {
    expect(services.postgres!.environment).not.toHaveProperty('POSTGRES_HOST_AUTH_METHOD');
    expect(services.postgres!.environment!.POSTGRES_PASSWORD).toMatch(/^\$\{POSTGRES_PASSWORD:\?/);
    const redis = services.redis!.command!;
    expect(redis[redis.indexOf('--requirepass') + 1]).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    expect(redis[redis.indexOf('--maxmemory') + 1]).toMatch(/\d+(mb|gb)/);
    expect(redis[redis.indexOf('--maxmemory-policy') + 1]).toBe('noeviction');
    expect(services.api!.environment!.DATABASE_URL).toContain(':${POSTGRES_PASSWORD}@');
    expect(services.api!.environment!.REDIS_URL).toContain(':${REDIS_PASSWORD}@');
  });

  it('passes every secret the service needs, required with ${VAR:?…}, and runs as production', () => {
    const env = services.api!.environment!;
    for (const name of ['TOKEN_SECRET', 'SESSION_SECRET', 'METRICS_TOKEN', 'STRIPE_SECRET_KEY']) {
      expect({ name, value: env[name] }).toEqual({
        name,
        value: expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?.+\\}$`)),
      });
    }
    expect(env.NODE_ENV).toBe('production');
    expect(services.worker!.environment).toEqual(env);
  });

  it('names only variables the service knows', () => {
    const known = new Set(Object.keys(ConfigSchema.shape));
    for (const name of Object.keys(services.api!.environment!))
      expect({ name, known: known.has(name) }).toEqual({ name, known: true });
  });
});

describe('Dockerfile', () => {
  const dockerfile = read('Dockerfile');
  const runtime = dockerfile.slice(dockerfile.lastIndexOf('\nFROM '));

  it('runs the last stage as an unprivileged user, in production mode, with a health check', () => {
    expect(runtime).toMatch(/^USER node$/m);
    expect(runtime).toMatch(/^ENV NODE_ENV=production$/m);
    expect(runtime).toMatch(
      /^HEALTHCHECK .*\n?.*CMD \["node", "dist\/scripts\/healthcheck\.js", "8000", "\/healthz"\]/m,
    );
    expect(runtime.indexOf('USER node')).toBeLessThan(runtime.indexOf('CMD ["node", "dist/api/main.js"]'));
  });

  it('keeps the Prisma CLI, tsx and TypeScript out of the runtime node_modules', () => {
    expect(dockerfile).toMatch(/npm prune --omit=dev --omit=optional/);
    const lock = JSON.parse(read('package-lock.json')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    // --omit=dev alone keeps devOptional packages (prisma and typescript are optional peers of
    // @prisma/client); omitting optional ones too drops them.
    for (const pkg of ['prisma', 'tsx', 'typescript']) {
      const entry = lock.packages[`node_modules/${pkg}`]!;
      expect({ pkg, dropped: entry.dev === true || entry.devOptional === true }).toEqual({ pkg, dropped: true });
    }
    const manifest = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    expect(Object.keys(manifest.dependencies)).not.toEqual(expect.arrayContaining(['tsx']));
  });
});
