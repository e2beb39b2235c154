// `send <kind> --dry-run` against the real service, for every kind the client sends: the run reports
// what the service would do (a refusal as a failure of its line) and not one row is written.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  importAccount,
  startInstructionsWorld,
  type ImportedAccount,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';
import { readResults, runClient, summaryOf, writeLines } from './client.fixture';

let world: InstructionsWorld;
let dir: string;
let account: ImportedAccount;

beforeAll(async () => {
  world = await startInstructionsWorld(10_000);
  account = await importAccount(world.app, world.tenant);
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-client-dry-'));
});
afterAll(async () => {
  await world.close();
  rmSync(dir, { recursive: true, force: true });
});

async function rowCounts() {
  const { prisma } = world.app.db;
  const where = { accountId: account.id };
  return [
    await prisma.note.count({ where }),
    await prisma.historicalStatement.count({ where }),
    await prisma.paymentInstruction.count({ where }),
    await prisma.transaction.count({ where }),
  ];
}

const line = (fields: Record<string, unknown>) =>
  JSON.stringify({
    import_supplier: world.tenant.supplier,
    external_account_number: account.number,
    ...fields,
  });

it.each([
  ['notes', () => [line({ body: 'one' }), line({ body: 'two' })]],
  [
    'statements',
    () => [
      line({ statement_id: 's-1', bill_period_from_date: '2021-01-01', bill_period_to_date: '2021-01-31' }),
      line({ statement_id: 's-2', bill_period_from_date: '2021-02-01', bill_period_to_date: '2021-01-31' }),
    ],
  ],
  ['payment-instructions', () => [line({ vendor: 'STRIPE', type: 'CARD', reference: world.fake.addCard().id })]],
  [
    'transactions',
    () => [line({ transaction_id: 't-1', transaction_date: '2024-03-01', amount: '5.00', type: 'CHARGE' })],
  ],
])('send %s --dry-run checks every line and writes nothing', async (kind, lines) => {
  const file = writeLines(dir, `${kind}.ndjson`, lines());
  const before = await rowCounts();

  const run = await runClient(world.app.baseUrl, world.tenant.apiKey, [
    'send',
    kind,
    file,
    '--dry-run',
    '--runs-dir',
    dir,
    '--json',
  ]);

  const summary = summaryOf(run);
  const failed = readResults(summary.journal, 'failed');
  expect(summary.succeeded + failed.length).toBe(lines().length);
  expect(summary.succeeded).toBeGreaterThan(0);
  if (kind === 'statements') {
    expect(failed.map((f) => f.line)).toEqual([2]);
    // The failure carries the line as read and the id of the request that refused it.
    expect(failed[0]!.record).toMatchObject({ statement_id: 's-2', bill_period_from_date: '2021-02-01' });
    expect(failed[0]!.request_id).toEqual(expect.stringMatching(/^\S{8,100}$/));
  }
  // The service's view of the run, announced first and repeated in the summary.
  const runUrl = `${world.app.baseUrl}/v1/data-import/runs/${summary.run_id}/`;
  expect(summary.run_url).toBe(runUrl);
  expect(JSON.parse(run.stdout.split('\n')[0]!)).toEqual({ event: 'run', run_id: summary.run_id, run_url: runUrl });
  // The run declared its file when it started: the service knows the total, so the run is 100 % done.
  const view = await fetch(runUrl, { headers: { authorization: `Token ${world.tenant.token}` } });
  const { progress } = (await view.json()) as { progress: Record<string, unknown> };
  const declaredFile = { name: `${kind}.ndjson`, lines: lines().length };
  expect(progress).toMatchObject({ items_done: lines().length, percent: 100, eta_seconds: 0 });
  expect(progress.declared).toMatchObject({ kind, items: lines().length, files: [declaredFile] });
  expect(await rowCounts()).toEqual(before);
});
