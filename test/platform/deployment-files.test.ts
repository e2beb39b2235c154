// No Docker engine runs here, so the deployment files are checked by reading them: what compose
// publishes and passes, and what the image carries and runs as.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { parse } from 'yaml';
import { migrate } from '../../prisma/migrate';
import { ConfigSchema, loadConfig } from '../../shared/platform/config';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';

const ROOT = path.join(__dirname, '../..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const INIT_SQL = 'deploy/postgres/10-app-owner-role.sql';

interface Service {
  ports?: string[];
  environment?: Record<string, string>;
  command?: string[];
  healthcheck?: { test: string[] };
  volumes?: string[];
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
    expect(services.postgres!.environment!.POSTGRES_APP_PASSWORD).toMatch(/^\$\{POSTGRES_APP_PASSWORD:\?/);
    expect(services.redis!.environment!.REDIS_PASSWORD).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    for (const name of ['api', 'worker'])
      expect(services[name]!.environment!.REDIS_URL).toContain(':${REDIS_PASSWORD}@');
  });

  it('connects the api and the worker as the owner role the init script creates, never as the superuser', () => {
    const postgres = services.postgres!;
    expect(postgres.volumes).toContain(`./${INIT_SQL}:/docker-entrypoint-initdb.d/10-app-owner-role.sql:ro`);
    const role = postgres.environment!.POSTGRES_APP_USER!;
    expect(role).toMatch(/^[a-z_]+$/);
    expect(role).not.toBe(postgres.environment!.POSTGRES_USER);
    for (const name of ['api', 'worker']) {
      const url = services[name]!.environment!.DATABASE_URL!;
      expect({ name, url }).toEqual({
        name,
        url: `postgresql://${role}:\${POSTGRES_APP_PASSWORD}@postgres:5432/data_import`,
      });
    }
  });

  it('puts no Redis password on a command line: redis-server reads it from a file written from the environment', () => {
    const command = services.redis!.command!;
    expect(command.join(' ')).not.toMatch(/--requirepass|\$\{REDIS_PASSWORD/);
    // Run the container's script here, with its paths and the image's entrypoint swapped for local ones.
    const dir = mkdtempSync(path.join(tmpdir(), 'redis-conf-'));
    const conf = path.join(dir, 'redis.conf');
    const script = command[2]!
      .replaceAll('$$', '$')
      .replaceAll('/tmp/redis.conf', conf)
      .replace(/^chown .*$/m, '')
      .replace(/exec docker-entrypoint\.sh redis-server (\S+)/, 'cat $1');
    expect(command.slice(0, 2)).toEqual(['sh', '-c']);
    const password = randomBytes(32).toString('hex');
    const written = execFileSync('sh', ['-c', script], {
      env: { PATH: process.env.PATH, REDIS_PASSWORD: password, REDIS_MAXMEMORY: '512mb' },
      encoding: 'utf8',
    });
    expect(written.split('\n')).toEqual(
      expect.arrayContaining([`requirepass "${password}"`, 'maxmemory 512mb', 'maxmemory-policy noeviction']),
    );
    expect(statSync(conf).mode & 0o077).toBe(0);
    expect(command[2]).toMatch(/exec docker-entrypoint\.sh redis-server \/tmp\/redis\.conf\s*$/);
    expect(services.redis!.environment!.REDIS_MAXMEMORY).toMatch(/\d+(mb|gb)/);
  });

  it('passes every secret the API needs, required with ${VAR:?…}, and runs as production', () => {
    const env = services.api!.environment!;
    for (const name of ['TOKEN_SECRET', 'SESSION_SECRET', 'METRICS_TOKEN', 'STRIPE_SECRET_KEY']) {
      expect({ name, value: env[name] }).toEqual({
        name,
        value: expect.stringMatching(new RegExp(`^\\$\\{${name}:\\?.+\\}$`)),
      });
    }
    expect(env.NODE_ENV).toBe('production');
  });

  it('gives the worker no signing secret, and its configuration starts without them', () => {
    const env = services.worker!.environment!;
    for (const name of ['TOKEN_SECRET', 'SESSION_SECRET', 'SESSION_SECRET_PREVIOUS'])
      expect(env).not.toHaveProperty(name);
    expect(env.NODE_ENV).toBe('production');
    // As compose would hand it over, every ${VAR…} given a value.
    const given = Object.fromEntries(
      Object.entries(env).map(([k, v]) => [k, v.replace(/\$\{[^}]+\}/g, randomBytes(32).toString('hex'))]),
    );
    expect(loadConfig(given, 'worker').NODE_ENV).toBe('production');
    expect(() => loadConfig(given, 'api')).toThrow(/TOKEN_SECRET is required/);
  });

  it('names only variables the service knows', () => {
    const known = new Set(Object.keys(ConfigSchema.shape));
    for (const name of [...Object.keys(services.api!.environment!), ...Object.keys(services.worker!.environment!)])
      expect({ name, known: known.has(name) }).toEqual({ name, known: true });
  });
});

describe('the PostgreSQL init script', () => {
  // Run here as the image runs it (psql, as the superuser, the names and password in the environment),
  // on a database and role of this test's own.
  const suffix = uniqueSuffix().toLowerCase();
  const role = `dit_owner_${suffix}`;
  const database = `dit_owner_db_${suffix}`;
  const server = new URL(testDatabaseUrl);
  const admin = () =>
    new Client({ connectionString: `${server.protocol}//${server.username}@${server.host}/postgres` });

  afterAll(async () => {
    const client = admin();
    await client.connect();
    await client.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await client.query(`DROP ROLE IF EXISTS ${role}`);
    await client.end();
  });

  it('creates a role that owns the database and its schema, migrates it, and holds no other privilege', async () => {
    const client = admin();
    await client.connect();
    try {
      await client.query(`CREATE DATABASE ${database}`);
      execFileSync(
        'psql',
        ['-h', server.hostname, '-p', server.port || '5432', '-U', server.username, '-d', database, '--no-psqlrc'],
        {
          input: read(INIT_SQL),
          env: {
            ...process.env,
            POSTGRES_APP_USER: role,
            POSTGRES_APP_PASSWORD: randomBytes(32).toString('hex'),
            POSTGRES_DB: database,
          },
          stdio: ['pipe', 'ignore', 'pipe'],
        },
      );
      const { rows } = await client.query(
        `SELECT rolsuper, rolcreatedb, rolcreaterole, rolreplication, rolbypassrls, rolcanlogin,
                pg_get_userbyid(d.datdba) AS owner
           FROM pg_roles r, pg_database d WHERE r.rolname = $1 AND d.datname = $2`,
        [role, database],
      );
      expect(rows).toEqual([
        {
          rolsuper: false,
          rolcreatedb: false,
          rolcreaterole: false,
          rolreplication: false,
          rolbypassrls: false,
          rolcanlogin: true,
          owner: role,
        },
      ]);
    } finally {
      await client.end();
    }
    // The service's own start-up migration runs as that role.
    await migrate(`${server.protocol}//${role}@${server.host}/${database}`);
    const app = new Client({ connectionString: `${server.protocol}//${role}@${server.host}/${database}` });
    await app.connect();
    try {
      const { rows } = await app.query<{ owners: string[] }>(
        "SELECT array_agg(DISTINCT tableowner::text) AS owners FROM pg_tables WHERE schemaname = 'public'",
      );
      expect(rows[0]!.owners).toEqual([role]);
    } finally {
      await app.end();
    }
  }, 120_000);
});

describe('.dockerignore', () => {
  const patterns = read('.dockerignore')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));

  it('keeps local secrets and the migration client journals out of the build context', () => {
    expect(patterns).toEqual(expect.arrayContaining(['**/.env*', '**/data-import-runs']));
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
