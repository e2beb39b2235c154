// `report --supplier X --out NAME`: the sign-off pack a supplier can approve, NAME.html and NAME.csv:
// the reconciliation per account and in total (every run in --runs-dir against the service's
// figures, as `reconcile` computes them), failures across every run by code with example lines,
// accounts never created, payment instructions' ownership status, and the runs with their timings.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defineCommand } from '../cli/command';
import { CONNECTION, JSON_OUTPUT, RUNS_DIR, runsDirOf } from '../cli/common-options';
import { apiKey, serviceUrl } from '../cli/connection';
import { EXIT, UsageError } from '../client-errors';
import { serviceFetch } from '../http/service-fetch';
import { TokenSource } from '../http/token-source';
import { readEntries } from '../input-reader';
import { addExpected } from '../reconcile-report';
import { parseReconciliationRow, type Figures } from '../reconciliation-row';
import { PackWriter } from '../report/pack-writer';
import { printPdf } from '../report/pack-pdf';
import { counted, isClean, linesOf, type PackSummary } from '../report/report-html';
import { addAccountsSent, readRunsReport } from '../report/report-runs';
import { jsonLine, writeOut } from '../terminal-text';
import { fetchReconciliation, inputsOf } from './reconcile';

export const reportCommand = defineCommand({
  name: 'report',
  args: '--supplier CODE --out NAME',
  summary: 'write the sign-off pack (NAME.html and NAME.csv) from every run in --runs-dir and the service',
  options: {
    supplier: { type: 'string', arg: 'CODE', help: 'the import supplier the pack is for' },
    out: { type: 'string', arg: 'NAME', help: 'the pack: NAME.html and NAME.csv (default signoff-<supplier>)' },
    pdf: { type: 'boolean', help: 'also print the page to NAME.pdf with headless Chromium (for sign-off by e-mail)' },
    browser: {
      type: 'string',
      arg: 'PATH',
      help: 'the Chromium (or Chrome) executable --pdf runs (default: chromium, then google-chrome, on PATH)',
    },
    ...RUNS_DIR,
    ...CONNECTION,
    ...JSON_OUTPUT,
  },
  async action({ positionals, values }) {
    const { supplier } = values;
    if (!supplier || supplier.length > 128 || positionals.length > 0)
      throw new UsageError('report takes --supplier CODE (and --out NAME), no other argument');
    const base = path.resolve(values.out ?? `signoff-${supplier.replace(/[^A-Za-z0-9_-]/g, '_')}`);
    const runsDir = runsDirOf(values);
    const runs = await readRunsReport(runsDir, supplier);
    await addAccountsSent(runs, supplier);
    const expected = new Map<string, Figures>();
    const dirs = runs.runs.map((r) => r.dir);
    for (const input of dirs.length > 0 ? await inputsOf(dirs, runsDir) : []) {
      if (!existsSync(input.meta.input))
        throw new UsageError(`a run's input ${input.meta.input} is not here: put it back at that path`);
      for await (const entry of readEntries(input.meta.input, input.meta.format)) {
        if (!input.succeeded.has(entry.line) || entry.account?.import_supplier !== supplier) continue;
        addExpected(expected, input.meta.kind, entry);
      }
    }
    const baseUrl = serviceUrl(values);
    const policy = {
      tokens: new TokenSource(baseUrl, apiKey(values), serviceFetch),
      requestTimeoutMs: values['request-timeout'] * 1000,
      retryDeadlineMs: values['retry-deadline'] * 1000,
    };
    const pack = new PackWriter(`${base}.csv`, `${base}.html`, expected, runs);
    let rowNumber = 0;
    for await (const line of await fetchReconciliation(baseUrl, supplier, policy)) {
      if (line === '') continue;
      const row = parseReconciliationRow(line, ++rowNumber);
      pack.account(row.account, row.platform, row.found, row.added);
    }
    const s = pack.finish(supplier);
    const pdf = values.pdf ? await printPdf(`${base}.html`, `${base}.pdf`, values.browser) : undefined;
    const summary = {
      event: 'summary',
      supplier,
      html: `${base}.html`,
      csv: `${base}.csv`,
      ...(pdf ? { pdf } : {}),
      accounts: s.accounts,
      accounts_differing: s.differing,
      outstanding_failed_lines: linesOf(s.outstanding),
      resolved_failed_lines: linesOf(s.resolved),
      dry_run_failed_lines: linesOf(s.dryRun),
      never_created: s.neverCreatedCount,
      added_by_service: s.addedByService,
      runs: s.runs.length,
    };
    writeOut(values.json ? jsonLine(summary) : describe(s, [summary.html, summary.csv, ...(pdf ? [pdf] : [])]));
    return isClean(s) ? EXIT.ok : EXIT.itemsFailed;
  },
});

function describe(s: PackSummary, files: string[]): string {
  const figures = [
    `${counted(s.accounts, 'account')}, ${s.differing} differ`,
    `${counted(linesOf(s.outstanding), 'failed line')} outstanding`,
    `${linesOf(s.resolved)} resolved by a later run`,
    `${linesOf(s.dryRun)} dry-run findings (not failures)`,
    `${counted(s.neverCreatedCount, 'account')} never created`,
    counted(s.runs.length, 'run'),
  ];
  const verdict = isClean(s) ? 'ready to sign off' : 'not ready to sign off';
  return `sign-off pack for ${s.supplier}: ${figures.join(', ')}; ${verdict}\n${files.map((f) => `  ${f}\n`).join('')}`;
}
