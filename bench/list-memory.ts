// Measures GET all-account-import-processes for a supplier with 1,000,000 accounts (half imported)
// against a separate API process: seconds to the last byte, and how far the API's RSS grows above its
// level before the request. Usage: npm run bench:list [-- --accounts N]
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { migrate } from '../prisma/migrate';
import { applyFile } from '../shared/admin/apply.use-case';
import { createDatabase } from '../shared/platform/db';

const { values } = parseArgs({ options: { accounts: { type: 'string', default: '1000000' } } });
const ACCOUNTS = Number(values.accounts);
const DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import_bench';
const SUPPLIER = `BENCH_LIST_${ACCOUNTS}`;
const API_KEY = `bench-list-key-${'k'.repeat(32)}`;

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
}

async function seed(): Promise<void> {
  await migrate(DATABASE_URL);
  const db = createDatabase({ DATABASE_URL, DB_POOL_SIZE: 2 });
  try {
    await applyFile(db, {
      suppliers: [{ code: SUPPLIER }],
      organisations: [{ name: 'bench-list', api_key: API_KEY, suppliers: [SUPPLIER] }],
    });
    const have = await db.prisma.accountImportProcess.count({ where: { supplierCode: SUPPLIER } });
    if (have === ACCOUNTS) return;
    await db.prisma.$executeRaw`DELETE FROM accounts WHERE process_id IN (SELECT id FROM account_import_processes WHERE supplier_code = ${SUPPLIER})`;
    await db.prisma.$executeRaw`DELETE FROM account_import_processes WHERE supplier_code = ${SUPPLIER}`;
    await db.prisma.$executeRaw`
      INSERT INTO account_import_processes (supplier_code, external_account_number, state)
      SELECT ${SUPPLIER}, 'EXT-' || lpad(g::text, 8, '0'),
             (CASE WHEN g % 2 = 0 THEN 'IMPORTED' ELSE 'STAGED' END)::"ImportState"
        FROM generate_series(1, ${ACCOUNTS}::int) g`;
    await db.prisma.$executeRaw`
      INSERT INTO accounts (process_id, platform_account_number, created_at)
      SELECT id, 'A-' || ${SUPPLIER} || '-' || id, now() FROM account_import_processes
       WHERE supplier_code = ${SUPPLIER} AND state = 'IMPORTED'`;
    await db.prisma.$executeRaw`ANALYZE account_import_processes`;
    await db.prisma.$executeRaw`ANALYZE accounts`;
  } finally {
    await db.close();
  }
}

async function waitForApi(base: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${base}/v1/graphql/`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ ping }' }),
      });
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('API did not start within 30 s');
}

async function main(): Promise<void> {
  const seedStart = Date.now();
  await seed();
  console.error(`seeded ${ACCOUNTS} accounts in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  const port = 18_000 + Math.floor(Math.random() * 1000);
  const api = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: { ...process.env, DATABASE_URL, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', QUEUE_PREFIX: '{bench}' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitForApi(base);
    const tokenRes = await fetch(`${base}/v1/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($k: String!) { obtainToken(input: {APIKey: $k}) { token } }',
        variables: { k: API_KEY },
      }),
    });
    const token = ((await tokenRes.json()) as { data: { obtainToken: { token: string } } }).data.obtainToken.token;
    // Warm-up with a small supplier-less request so lazy module loading is not counted as growth.
    await fetch(`${base}/v1/data-import/account-transfer-status/${SUPPLIER}/EXT-00000001/`, {
      headers: { authorization: `Token ${token}` },
    }).then((r) => r.text());
    const before = rssMb(api.pid!);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, rssMb(api.pid!))), 20);
    const started = performance.now();
    const res = await fetch(`${base}/v1/data-import/all-account-import-processes/${SUPPLIER}/`, {
      headers: { authorization: `Token ${token}` },
    });
    let bytes = 0;
    let rows = 0;
    for await (const chunk of res.body!) {
      bytes += chunk.length;
      for (const b of chunk) if (b === 0x7b) rows += 1; // one "{" per row
    }
    const seconds = (performance.now() - started) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, rssMb(api.pid!));
    const result = {
      accounts: ACCOUNTS,
      rows,
      megabytes: +(bytes / 1e6).toFixed(1),
      seconds_to_last_byte: +seconds.toFixed(2),
      api_rss_before_mb: +before.toFixed(1),
      api_rss_peak_mb: +peak.toFixed(1),
      api_rss_growth_mb: +(peak - before).toFixed(1),
    };
    console.log(JSON.stringify(result, null, 2));
    if (rows !== ACCOUNTS) throw new Error(`expected ${ACCOUNTS} rows, got ${rows}`);
  } finally {
    api.kill('SIGTERM');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
