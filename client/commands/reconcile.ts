// `reconcile --supplier X <inputs…> --out report.csv`: what the journals say succeeded, against the
// service's reconciliation endpoint (fetched under the same retry policy as every request); exit 0
// only when every account matches. The comparison itself is in reconcile-report.ts.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { defineCommand } from '../cli/command';
import { CONNECTION, JSON_OUTPUT, RUNS_DIR, runsDirOf } from '../cli/common-options';
import { apiKey, serviceUrl } from '../cli/connection';
import { EXIT, FatalError, UsageError } from '../client-errors';
import { retryAfterMs, withRetries, type RetryPolicy } from '../http/retry-policy';
import { boundedLines, readBounded, serviceFetch } from '../http/service-fetch';
import { TokenSource } from '../http/token-source';
import { readEntries, scanFile } from '../input-reader';
import { LineSet } from '../line-set';
import { addExpected, compare, formatSummary } from '../reconcile-report';
import type { Figures } from '../reconciliation-row';
import { readMeta, readRun, type RunMeta } from '../run-journal';
import { jsonLine, oneLine, writeOut } from '../terminal-text';

/** A row holds two account numbers and a score of figures: well under a kilobyte. */
const MAX_ROW_CHARS = 64 * 1024;

export const reconcileCommand = defineCommand({
  name: 'reconcile',
  args: '--supplier CODE --out FILE <input file or journal dir>…',
  summary: "compare what succeeded (per the journals) with the service's reconciliation; exit 0 only if equal",
  details: ['an input file stands for every run of it in --runs-dir'],
  options: {
    supplier: { type: 'string', arg: 'CODE', help: 'the import supplier to reconcile' },
    out: { type: 'string', arg: 'FILE', help: 'the CSV report: one row per account' },
    ...RUNS_DIR,
    ...CONNECTION,
    ...JSON_OUTPUT,
  },
  async action({ positionals, values }) {
    const { supplier, out } = values;
    if (!supplier || supplier.length > 128 || !out || positionals.length === 0) {
      throw new UsageError(
        'reconcile takes --supplier CODE, --out FILE and at least one input file or journal directory',
      );
    }
    const baseUrl = serviceUrl(values);
    const policy: RetryPolicy = {
      tokens: new TokenSource(baseUrl, apiKey(values), serviceFetch),
      requestTimeoutMs: values['request-timeout'] * 1000,
      retryDeadlineMs: values['retry-deadline'] * 1000,
    };
    const expected = new Map<string, Figures>();
    for (const input of await inputsOf(positionals, runsDirOf(values))) {
      for await (const entry of readEntries(input.meta.input, input.meta.format)) {
        if (!input.succeeded.has(entry.line) || entry.account?.import_supplier !== supplier) continue;
        addExpected(expected, input.meta.kind, entry);
      }
    }
    const summary = await compare(expected, await fetchReconciliation(baseUrl, supplier, policy), out);
    writeOut(values.json ? jsonLine({ event: 'summary', ...summary }) : formatSummary(summary, out));
    return summary.accounts_differing === 0 ? EXIT.ok : EXIT.itemsFailed;
  },
});

export interface ReconcileInput {
  meta: RunMeta;
  succeeded: LineSet;
}

/** Each argument is a journal directory, or an input file whose runs are looked up in the runs directory. */
export async function inputsOf(args: string[], runsDir: string): Promise<ReconcileInput[]> {
  const byInput = new Map<string, ReconcileInput>();
  for (const arg of args.slice(0, 1000)) {
    const dirs = existsSync(path.join(arg, 'run.json')) ? [arg] : await runsOfFile(arg, runsDir);
    if (dirs.length === 0) throw new UsageError(`no run of ${arg} in ${runsDir} (pass its journal directory instead)`);
    for (const dir of dirs) {
      const run = await readRun(path.resolve(dir));
      // A dry run stored nothing, so nothing of it is expected.
      if (run.meta.options.dry_run) continue;
      const input = byInput.get(run.meta.input) ?? { meta: run.meta, succeeded: new LineSet() };
      if (input.meta.kind !== run.meta.kind)
        throw new UsageError(`${run.meta.input} was sent both as ${input.meta.kind} and as ${run.meta.kind}`);
      // A result line whose request the journal never closed is one a crash cut short: resume decides it.
      for await (const r of run.succeeded) if (run.finals.has(r.line)) input.succeeded.add(r.line);
      byInput.set(run.meta.input, input);
    }
  }
  return [...byInput.values()];
}

async function runsOfFile(file: string, runsDir: string): Promise<string[]> {
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`no such file or journal directory: ${file}`);
  const { checksum } = await scanFile(file);
  if (!existsSync(runsDir)) return [];
  return readdirSync(runsDir)
    .map((name) => path.join(runsDir, name))
    .filter((dir) => existsSync(path.join(dir, 'run.json')))
    .filter((dir) => {
      const meta = readMeta(dir);
      return meta.input === path.resolve(file) && meta.checksum === checksum;
    });
}

/**
 * The service's rows, as lines. 429 and 5xx are retried (Retry-After honoured), 401 renews the token, a
 * redirect stops the command (exit 3); any other answer is the user's to fix (exit 2).
 */
export async function fetchReconciliation(
  baseUrl: string,
  supplier: string,
  policy: RetryPolicy,
): Promise<AsyncIterable<string>> {
  const url = `${baseUrl}/v1/data-import/reconciliation/${encodeURIComponent(supplier)}/`;
  const result = await withRetries(policy, async (token, signal) => {
    const res = await serviceFetch(url, {
      headers: { authorization: `Token ${token}`, accept: 'application/x-ndjson' },
      signal,
    });
    if (res.ok && res.body) return { type: 'done', value: unbroken(boundedLines(res, MAX_ROW_CHARS)) };
    const text = (await readBounded(res, 64 * 1024)) ?? '';
    if (res.status === 401) return { type: 'reauth', reason: 'not_authenticated' };
    if (res.status < 500 && res.status !== 429)
      throw new UsageError(`the service answered ${res.status}: ${oneLine(text, 300)}`);
    return { type: 'retry', reason: String(res.status), retryAfterMs: retryAfterMs(res.headers.get('retry-after')) };
  });
  if (result.type === 'unfinished')
    throw new UsageError(`the reconciliation endpoint did not answer: ${result.reason}`);
  return result.value;
}

/** The rows; a stream the network cuts short ends the command with one line saying so (exit 3). */
async function* unbroken(lines: AsyncIterable<string>): AsyncIterable<string> {
  try {
    yield* lines;
  } catch (err) {
    if (err instanceof FatalError || !(err instanceof TypeError)) throw err;
    const cause = (err as { cause?: { code?: unknown } }).cause?.code;
    const why = typeof cause === 'string' ? cause : err.message;
    throw new FatalError(`the reconciliation stream broke off (${oneLine(why, 80)}): run reconcile again`);
  }
}
