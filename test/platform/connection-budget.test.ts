// The deployment's PostgreSQL connections as one budget (shared/platform/connection-budget.ts): what
// start-up refuses, and that the shipped chart's figures, the documented PgBouncer and the figures in
// docs/deployment.md are that computation and fit PostgreSQL's default max_connections (100).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { workerPoolSize } from '../../shared/catalog/jobs';
import { budgetProblems, connectionBudget } from '../../shared/platform/connection-budget';
import { ConfigSchema, loadConfig } from '../../shared/platform/config';
import { renderChart } from '../helpers/render-chart';

const ROOT = path.join(__dirname, '../..');
const DOC = readFileSync(path.join(ROOT, 'docs/deployment.md'), 'utf8');
const configMap = renderChart()
  .flatMap((f) => f.objects)
  .find((o) => o.kind === 'ConfigMap' && o.metadata.name === 'data-import-config')!;
const shipped = ConfigSchema.parse(configMap.data);

/** A setting of the PgBouncer sample in docs/deployment.md ("PostgreSQL through a pooler"). */
function pgbouncer(setting: string): number {
  const ini = /```ini\n([\s\S]*?)```/.exec(DOC)?.[1] ?? '';
  const found = new RegExp(`^${setting}\\s*=\\s*(\\d+)`, 'm').exec(ini);
  if (!found) throw new Error(`the documented PgBouncer sets no ${setting}`);
  return Number(found[1]);
}

describe('the connection budget', () => {
  it('counts every pool of the most replicas that can run, a rolling update included, and the migration', () => {
    const c = loadConfig({
      DEPLOYMENT_REPLICAS: '4',
      WORKER_REPLICAS: '3',
      DEPLOYMENT_SURGE: '1',
      DB_POOL_SIZE: '10',
      WORKER_CONCURRENCY: '8',
    });
    const b = connectionBudget(c, workerPoolSize(c));
    // 5 API × 10 + 4 workers × (8 × 3 + 1) + 1 migration.
    expect(b).toMatchObject({ apiProcesses: 5, workerProcesses: 4, workerPool: 25, clientConnections: 151 });
    expect(b.streamConnections).toBe(5 * (6 + 2));
  });

  it('names what to change when the pools could open more than DB_CLIENT_CONNECTIONS', () => {
    const c = loadConfig({ DEPLOYMENT_REPLICAS: '2', WORKER_REPLICAS: '2', DB_CLIENT_CONNECTIONS: '100' });
    // 2 × 10 + 2 × 49 + 1 = 119 with the defaults.
    expect(budgetProblems(c, workerPoolSize(c))).toEqual([
      expect.stringMatching(
        /^the deployment's pools may open 2 API processes × 10 \+ 2 worker processes × 49 \+ 1 migration = 119 connections, more than DB_CLIENT_CONNECTIONS \(100\): lower DB_POOL_SIZE, WORKER_CONCURRENCY/,
      ),
    ]);
    expect(budgetProblems({ ...c, DB_CLIENT_CONNECTIONS: 119 }, workerPoolSize(c))).toEqual([]);
    expect(budgetProblems({ ...c, DB_CLIENT_CONNECTIONS: undefined }, workerPoolSize(c))).toEqual([]);
  });

  it('stops a starting process before it connects anywhere, naming the budget', () => {
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? '/root',
        DB_CLIENT_CONNECTIONS: '20',
        DATABASE_URL: 'postgresql://nobody@127.0.0.1:1/never',
      },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).toBe(1);
    expect(run.stderr).toMatch(
      /api: Invalid configuration:\n {2}the deployment's pools may open .* = 60 connections, more than DB_CLIENT_CONNECTIONS \(20\)/,
    );
  }, 70_000);
});

describe("the shipped chart's figures", () => {
  const budget = connectionBudget(shipped, workerPoolSize(shipped));

  it('fit the documented PgBouncer, and are what the ConfigMap hands the service to check', () => {
    expect(shipped.DB_CLIENT_CONNECTIONS).toBe(pgbouncer('max_client_conn'));
    expect(shipped.DB_SERVER_CONNECTIONS).toBe(pgbouncer('default_pool_size'));
    expect(budgetProblems(shipped, workerPoolSize(shipped))).toEqual([]);
    expect(budget.clientConnections).toBeLessThanOrEqual(pgbouncer('max_client_conn'));
    expect(2 * budget.streamConnections).toBeLessThanOrEqual(pgbouncer('default_pool_size'));
  });

  it("fit PostgreSQL's default 100 connections behind that PgBouncer", () => {
    // Server connections to the database, all roles together (the runtime role's pool and the owner's,
    // for the migration), are capped by max_db_connections; PostgreSQL keeps 3 for superusers.
    const server = Math.min(pgbouncer('max_db_connections'), 2 * pgbouncer('default_pool_size'));
    expect(server + 3).toBeLessThanOrEqual(100);
  });

  it('are the figures docs/deployment.md gives', () => {
    const b = budget;
    const line = `(${shipped.DEPLOYMENT_REPLICAS} + ${shipped.DEPLOYMENT_SURGE}) × ${b.apiPool} + (${shipped.WORKER_REPLICAS} + ${shipped.DEPLOYMENT_SURGE}) × ${b.workerPool} + ${b.migration} = ${b.clientConnections}`;
    expect(DOC).toContain(line);
    expect(DOC).toContain(
      `(${shipped.DEPLOYMENT_REPLICAS} + ${shipped.DEPLOYMENT_SURGE}) × (${shipped.LIST_STREAMS_PER_PROCESS} + ${shipped.STAFF_STREAMS_PER_PROCESS}) = ${b.streamConnections}`,
    );
  });
});
