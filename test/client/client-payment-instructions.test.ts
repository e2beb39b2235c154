// Payment instructions through the client: one per request, the vendor's refusals as final failures
// of their own lines, and the reconciliation's active-instruction flag.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  importAccount,
  startInstructionsWorld,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';
import { readResults, runClient, summaryOf, writeLines } from './client.fixture';

let world: InstructionsWorld;

beforeAll(async () => {
  world = await startInstructionsWorld(10_000);
});
afterAll(() => world.close());

it('sends a CSV of instructions one per request; vendor refusals fail only their own lines', async () => {
  const { app, tenant, fake } = world;
  const accounts = [
    await importAccount(app, tenant),
    await importAccount(app, tenant),
    await importAccount(app, tenant),
  ];
  const dir = mkdtempSync(path.join(tmpdir(), 'data-import-client-pi-'));
  const row = (account: string, type: string, reference: string) =>
    [tenant.supplier, account, 'STRIPE', type, reference].join(',');
  const file = writeLines(dir, 'instructions.csv', [
    'import_supplier,external_account_number,vendor,type,reference',
    row(accounts[0]!.number, 'CARD', fake.addCard().id),
    row(accounts[1]!.number, 'CARD', 'pm_UnknownAtVendor'),
    row(accounts[1]!.number, 'BPAY', fake.addCard().id),
    row(accounts[2]!.number, 'CARD', fake.addCard().id),
  ]);

  const run = await runClient(app.baseUrl, tenant.apiKey, [
    'send',
    'payment-instructions',
    file,
    '--runs-dir',
    dir,
    '--json',
  ]);

  expect(run.code).toBe(1);
  expect(summaryOf(run)).toMatchObject({ succeeded: 2, failed: 2, unprocessed: 0 });
  const failed = readResults(summaryOf(run).journal, 'failed').sort((a, b) => a.line - b.line);
  expect(failed.map((f) => [f.line, f.external_account_number, f.code, f.attr])).toEqual([
    [3, accounts[1]!.number, 'payment_instruction_not_found_at_vendor', 'reference'],
    [4, accounts[1]!.number, 'invalid_choice', 'type'],
  ]);

  const report = path.join(dir, 'report.csv');
  const reconciled = await runClient(app.baseUrl, tenant.apiKey, [
    'reconcile',
    '--supplier',
    tenant.supplier,
    file,
    '--runs-dir',
    dir,
    '--out',
    report,
    '--json',
  ]);
  expect(summaryOf(reconciled).totals.payment_instruction_active).toEqual({
    expected: '2',
    found: '2',
    difference: '0',
  });
  expect(reconciled.code).toBe(0);
  rmSync(dir, { recursive: true, force: true });
});
