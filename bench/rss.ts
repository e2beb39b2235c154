// `npm run bench:rss`: the memory figures behind the Kubernetes resource requests (docs/deployment.md,
// "Kubernetes"). Starts one compiled API process and one compiled worker process as the Deployments run
// them, drives them for 30 s (queued transactions writes of 100 items and status reads, 16 clients), and
// prints each process's resident memory at rest and its peak (VmHWM) under that load.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { migrate } from '../prisma/migrate';
import { applyFile } from '../shared/admin/apply.use-case';
import { createDatabase } from '../shared/platform/db';
import { freePort, obtainToken, untilReady } from './service';

const ROOT = path.join(__dirname, '..');
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import_rss';
const SECONDS = 30;
const CLIENTS = 16;

function memoryMb(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? NaN);
  return { rss: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

function start(entry: string, env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, ['--max-semi-space-size=32', entry], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'development', DATABASE_URL, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function main(): Promise<void> {
  await migrate(DATABASE_URL);
  const suffix = randomBytes(4).toString('hex').toUpperCase();
  const db = createDatabase({ DATABASE_URL, DB_POOL_SIZE: 2, DB_PREPARED_STATEMENTS: 'unnamed' } as never);
  const apiKey = `rss-key-${suffix}-${'x'.repeat(32)}`;
  const supplier = `RSS_${suffix}`;
  const accounts = Array.from({ length: CLIENTS }, (_, i) => `RSS-${suffix}-${i}`);
  await applyFile(db, {
    suppliers: [{ code: supplier, status: 'Ongoing', document_root: `imports/${suffix}` }],
    organisations: [{ name: `rss-${suffix}`, api_key: apiKey, suppliers: [supplier] }],
    accounts: accounts.map((external) => ({
      import_supplier: supplier,
      external_account_number: external,
      state: 'imported',
      open_statement_from: '2019-10-01',
    })),
  });
  await db.close();

  const port = await freePort();
  const env = { QUEUE_PREFIX: `{rss-${suffix}}`, MIGRATE_ON_START: 'false' };
  const api = start('dist/api/main.js', { ...env, PORT: String(port), HOST: '127.0.0.1' });
  const worker = start('dist/worker/main.js', env);
  try {
    const base = `http://127.0.0.1:${port}`;
    await untilReady(base);
    const rest = { api: memoryMb(api.pid!), worker: memoryMb(worker.pid!) };
    const token = await obtainToken(base, apiKey);
    const deadline = Date.now() + SECONDS * 1000;
    let requests = 0;
    const client = async (i: number) => {
      for (let n = 0; Date.now() < deadline; n++) {
        const transactions = Array.from({ length: 100 }, (_, k) => ({
          transaction_id: `rss-${i}-${n}-${k}`,
          transaction_date: '2019-10-04',
          amount: 71,
          type: 'PAYMENT',
          reason: 'GENERAL_CREDIT',
          reference: `reference ${k}`,
          payment_type: 'DEBIT_CARD',
        }));
        const headers = { authorization: `Token ${token}`, 'content-type': 'application/json' };
        await fetch(`${base}/v1/data-import/transactions/create/`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ import_supplier: supplier, external_account_number: accounts[i], transactions }),
        }).then((r) => r.arrayBuffer());
        await fetch(`${base}/v1/data-import/account-transfer-status/${supplier}/${accounts[i]}/`, { headers }).then(
          (r) => r.arrayBuffer(),
        );
        requests += 2;
      }
    };
    await Promise.all(accounts.map((_, i) => client(i)));
    const loaded = { api: memoryMb(api.pid!), worker: memoryMb(worker.pid!) };
    console.log(JSON.stringify({ seconds: SECONDS, clients: CLIENTS, requests, rest, loaded }));
  } finally {
    api.kill('SIGTERM');
    worker.kill('SIGTERM');
  }
}

void main();
