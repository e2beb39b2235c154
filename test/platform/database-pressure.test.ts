// Database pressure is back-pressure, never a 500: the service's role capped at two connections (as a
// managed server's max_connections does to too many replicas) under a burst of mixed writes, reads and
// sign-ins. Every answer is 2xx or 503 with Retry-After and a stable code; once the cap is lifted,
// every refused write resent as it was is stored exactly once. And the same through a PgBouncer restarted
// mid-load (in-flight queries cut, new connections refused until it is back), sign-ins included.
import { Client } from 'pg';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { obtainToken, request, startTestApp, createTenant, type Json, type TestApp } from '../helpers/app';
import { testDatabaseUrl, uniqueSuffix } from '../helpers/context';
import { startPgBouncer, type PgBouncer } from '../helpers/pgbouncer';
import { until } from '../helpers/until';
import { account, applyCatalogue } from '../account-import/account.fixture';
import { importedAccount, payment, postTransactions, type TestAccount } from '../transactions/transactions.fixture';

const OWNER = decodeURIComponent(new URL(testDatabaseUrl).username) || 'postgres';
const suffix = uniqueSuffix().toLowerCase();
const CAPPED = `dit_capped_${suffix}`;

/** The codes a 503 may carry under database pressure, or while a queued write waits for its worker. */
const BACK_PRESSURE = ['database_unavailable', 'database_busy', 'write_outcome_unknown', 'result_pending'];

/** Roles are the server's, not a database's: run on `postgres`, which exists before the test database. */
async function asOwner(statements: string[]): Promise<void> {
  const url = new URL(testDatabaseUrl);
  url.pathname = '/postgres';
  const client = new Client({ connectionString: url.toString() });
  await client.connect();
  try {
    for (const s of statements) await client.query(s);
  } finally {
    await client.end();
  }
}

function cappedUrl(): string {
  const u = new URL(testDatabaseUrl);
  u.username = CAPPED;
  return u.toString();
}

/** 2xx, or 503 with Retry-After and one of the back-pressure codes: anything else is the failure shown. */
function problem(answer: Json, what: string): string | undefined {
  if (answer.status >= 200 && answer.status < 300) return undefined;
  const code = (answer.body?.code ?? answer.body?.errors?.[0]?.extensions?.code) as string | undefined;
  if (answer.status === 503 && answer.headers.get('retry-after') && BACK_PRESSURE.includes(code ?? ''))
    return undefined;
  return `${what}: ${answer.status} ${JSON.stringify(answer.body)}`;
}

/** How the answers split, printed for docs/reliability.md: status and code → count. */
function tally(answers: Json[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const a of answers) {
    const code = a.status < 300 ? '' : ` ${a.body?.code ?? a.body?.errors?.[0]?.extensions?.code ?? '?'}`;
    counts[`${a.status}${code}`] = (counts[`${a.status}${code}`] ?? 0) + 1;
  }
  return counts;
}

describe('a role capped at two connections under a burst of mixed requests', () => {
  let app: TestApp;
  let workers: RunningWorkers | undefined;

  beforeAll(async () => {
    // Not a superuser (a superuser is not held to a connection limit); a member of the owner, so it
    // reads and writes every table.
    await asOwner([`CREATE ROLE "${CAPPED}" LOGIN`, `GRANT "${OWNER}" TO "${CAPPED}"`]);
  });
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await asOwner([`DROP ROLE IF EXISTS "${CAPPED}"`]);
  });

  it('answers every request 2xx or 503 with Retry-After, and every refused write resent is stored once', async () => {
    app = await startTestApp({
      DATABASE_URL: cappedUrl(),
      DB_POOL_SIZE: '8',
      DB_ACQUIRE_TIMEOUT_MS: '2000',
      RESULT_WAIT_MS: '2000',
      LOAD_SHED_RETRY_AFTER_SECONDS: '1',
    });
    await applyCatalogue(app);
    const tenant = await createTenant(app);
    const accounts: TestAccount[] = [await importedAccount(app, tenant), await importedAccount(app, tenant)];
    const on = (i: number) => accounts[i % accounts.length]!;

    const writes: { what: string; send: () => Promise<Json> }[] = [];
    for (let i = 0; i < 24; i++) {
      writes.push({
        what: `note ${i}`,
        send: () =>
          request(app.baseUrl, 'POST', '/v1/data-import/notes/create/', {
            token: tenant.token,
            body: {
              import_supplier: tenant.supplier,
              external_account_number: on(i).external,
              notes: [{ body: `pressure note ${i}`, created_at: '2026-11-01T10:00:00Z' }],
            },
          }),
      });
      writes.push({
        what: `transaction ${i}`,
        send: () =>
          postTransactions(
            app,
            tenant.token,
            {
              import_supplier: tenant.supplier,
              external_account_number: on(i).external,
              transactions: [payment(`pressure-${i}`)],
            },
            { idempotencyKey: `pressure-${suffix}-${i}` },
          ),
      });
    }
    // One schedule: the fixture's account names fixed meter points, which one supplier's live accounts share only once.
    writes.push({
      what: 'schedule',
      send: () =>
        request(app.baseUrl, 'POST', '/v2/data-import/accounts/', {
          token: tenant.token,
          body: { payload: account(tenant.supplier, `PRESSURE-${suffix}`) },
          headers: { 'idempotency-key': `schedule-${suffix}` },
        }),
    });
    const reads = Array.from({ length: 12 }, (_, i) => ({
      what: `status ${i}`,
      send: () =>
        request(app.baseUrl, 'GET', `/v1/data-import/account-transfer-status/${tenant.supplier}/${on(i).external}/`, {
          token: tenant.token,
        }),
    }));
    const signIns = Array.from({ length: 4 }, (_, i) => ({
      what: `sign-in ${i}`,
      send: () => obtainToken(app.baseUrl, { APIKey: tenant.apiKey }),
    }));

    // The cap, and the role's open connections cut (57P01 on the pool's idle clients).
    await asOwner([
      `ALTER ROLE "${CAPPED}" CONNECTION LIMIT 2`,
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '${CAPPED}'`,
    ]);
    const burst = [...writes, ...reads, ...signIns];
    const answers = await Promise.all(burst.map((r) => r.send()));
    console.log('capped burst:', JSON.stringify(tally(answers)));
    const problems = answers.map((a, i) => problem(a, burst[i]!.what)).filter((p) => p !== undefined);
    expect(problems).toEqual([]);
    const refused = answers.filter((a) => a.status === 503 && a.body?.code !== 'result_pending');
    // The cap did bite: some requests were refused by the database, not only queued.
    expect(refused.length).toBeGreaterThan(0);
    const codes = new Set(answers.filter((a) => a.status === 503).map((a) => a.body?.code ?? 'graphql'));
    expect([...codes].every((c) => [...BACK_PRESSURE, 'graphql'].includes(c as string))).toBe(true);

    // The cap lifted and the workers running: every write not answered 2xx, resent as it was, is.
    await asOwner([`ALTER ROLE "${CAPPED}" CONNECTION LIMIT -1`]);
    workers = await startWorkers(app);
    const unanswered = writes.filter((_, i) => answers[i]!.status >= 300);
    for (const w of unanswered) {
      await until(`${w.what} to be answered`, async () => {
        const again = await w.send();
        expect(problem(again, w.what)).toBeUndefined();
        return again.status < 300 ? again : undefined;
      });
    }

    const ids = accounts.map((a) => a.accountId);
    const notes = await app.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notes WHERE account_id = ANY($1) AND body LIKE 'pressure note %'`,
      [ids],
    );
    expect(notes.rows[0]!.n).toBe(24);
    const transactions = await app.db.prisma.transaction.count({ where: { accountId: { in: ids } } });
    expect(transactions).toBe(24);
    const processes = await app.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM account_import_processes WHERE supplier_code = $1 AND external_account_number LIKE 'PRESSURE-%'`,
      [tenant.supplier],
    );
    expect(processes.rows[0]!.n).toBe(1);
  }, 180_000);
});

describe('a PgBouncer restart in the middle of a load', () => {
  let bouncer: PgBouncer | undefined;
  let app: TestApp | undefined;
  let workers: RunningWorkers | undefined;
  const testDb = new URL(testDatabaseUrl).pathname.slice(1);
  afterAll(async () => {
    await workers?.stop();
    await app?.close();
    await bouncer?.stop();
  });

  it('answers every request 2xx or 503 with Retry-After, and every refused write resent is stored once', async () => {
    bouncer = await startPgBouncer({ roles: [OWNER], databases: [testDb], poolSize: 10 });
    const port = bouncer.port;
    app = await startTestApp({
      DATABASE_URL: bouncer.url(testDb),
      DB_POOL_SIZE: '8',
      DB_ACQUIRE_TIMEOUT_MS: '2000',
      RESULT_WAIT_MS: '2000',
      LOAD_SHED_RETRY_AFTER_SECONDS: '1',
    });
    const running = app;
    const tenant = await createTenant(running);
    const accounts = [await importedAccount(running, tenant), await importedAccount(running, tenant)];
    const on = (i: number) => accounts[i % accounts.length]!;
    const requestNumber = (n: number) => {
      const kind = n % 4;
      if (kind === 3)
        return {
          what: `sign-in ${n}`,
          write: false,
          send: () => obtainToken(running.baseUrl, { APIKey: tenant.apiKey }),
        };
      if (kind === 0)
        return {
          what: `note ${n}`,
          write: true,
          send: () =>
            request(running.baseUrl, 'POST', '/v1/data-import/notes/create/', {
              token: tenant.token,
              body: {
                import_supplier: tenant.supplier,
                external_account_number: on(n).external,
                notes: [{ body: `restart note ${n}`, created_at: '2026-11-01T10:00:00Z' }],
              },
            }),
        };
      if (kind === 1)
        return {
          what: `transaction ${n}`,
          write: true,
          send: () =>
            postTransactions(
              running,
              tenant.token,
              {
                import_supplier: tenant.supplier,
                external_account_number: on(n).external,
                transactions: [payment(`restart-${n}`)],
              },
              { idempotencyKey: `restart-${suffix}-${n}` },
            ),
        };
      return {
        what: `status ${n}`,
        write: false,
        send: () =>
          request(
            running.baseUrl,
            'GET',
            `/v1/data-import/account-transfer-status/${tenant.supplier}/${on(n).external}/`,
            { token: tenant.token },
          ),
      };
    };

    const sent: (ReturnType<typeof requestNumber> & { answer: Json })[] = [];
    let next = 0;
    let stop = false;
    const loader = async () => {
      while (!stop) {
        const r = requestNumber(next++);
        sent.push({ ...r, answer: await r.send() });
      }
    };
    const loaders = Promise.all(Array.from({ length: 6 }, loader));
    await until('30 answers before the restart', () => sent.length >= 30 || undefined);
    await bouncer.stop();
    await until('a refusal while the pooler is down', () =>
      sent.some((s) => s.answer.status === 503) ? true : undefined,
    );
    bouncer = await startPgBouncer({ roles: [OWNER], databases: [testDb], poolSize: 10, port });
    const restartedAt = sent.length;
    await until(
      '30 answers of 2xx after the restart',
      () => sent.slice(restartedAt).filter((s) => s.answer.status < 300).length >= 30 || undefined,
      60_000,
    );
    stop = true;
    await loaders;

    console.log('pooler restart:', JSON.stringify(tally(sent.map((s) => s.answer))));
    expect(sent.map((s) => problem(s.answer, s.what)).filter((p) => p !== undefined)).toEqual([]);
    expect(sent.filter((s) => s.answer.status === 503).length).toBeGreaterThan(0);

    workers = await startWorkers(running);
    for (const w of sent.filter((s) => s.write && s.answer.status >= 300)) {
      await until(`${w.what} to be answered`, async () => {
        const again = await w.send();
        return again.status < 300 ? again : undefined;
      });
    }
    const ids = accounts.map((a) => a.accountId);
    const notes = await running.db.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM notes WHERE account_id = ANY($1) AND body LIKE 'restart note %'`,
      [ids],
    );
    expect(notes.rows[0]!.n).toBe(sent.filter((s) => s.what.startsWith('note')).length);
    const transactions = await running.db.prisma.transaction.count({ where: { accountId: { in: ids } } });
    expect(transactions).toBe(sent.filter((s) => s.what.startsWith('transaction')).length);
  }, 180_000);
});
