// `send` starts a run (a new journal directory) and `resume` continues one; both then execute the run
// and print its summary. Ctrl-C stops reading and starting requests, lets those in flight finish, and
// says how to resume; a second Ctrl-C leaves at once (the journal still has everything).
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { apiKey, boolOption, intOption, serviceUrl, type ParsedArgs } from './cli-args';
import { EXIT, UsageError } from './client-errors';
import { formatOf, scanFile } from './input-reader';
import { isKind, KINDS } from './item-kinds';
import { ProgressReporter, type ProgressMode } from './progress-reporter';
import { RunJournal, type RunMeta } from './run-journal';
import type { RunSummary } from './run-summary';
import { executeRun } from './send-run';
import { serviceFetch } from './service-fetch';
import { jsonLine, writeErr, writeOut } from './terminal-text';
import { TokenSource } from './token-source';

/** The service's own MAX_ITEMS_PER_REQUEST default. */
const MAX_BATCH = 1000;

export const runsDirOf = (values: ParsedArgs['values']) => path.resolve(values['runs-dir'] ?? 'data-import-runs');

export async function sendCommand({ positionals, values }: ParsedArgs): Promise<number> {
  const [kind, file] = positionals;
  if (!isKind(kind) || !file || positionals.length > 2) {
    throw new UsageError(`send takes a kind (${KINDS.join(', ')}) and one file`);
  }
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const { checksum, lines } = await scanFile(file);
  const stamp = new Date()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const runId = `${kind}-${stamp}-${randomBytes(3).toString('hex')}`;
  const meta: RunMeta = {
    version: 1,
    run_id: runId,
    kind,
    input: path.resolve(file),
    format: formatOf(file, values.format),
    checksum,
    lines,
    batch: intOption(values.batch, 'batch', 100, 1, MAX_BATCH),
    concurrency: intOption(values.concurrency, 'concurrency', 8, 1, 64),
    options: {
      check_previously_added: boolOption(values['check-previously-added'], 'check-previously-added'),
      force_add_to_current_statement: boolOption(
        values['force-add-to-current-statement'],
        'force-add-to-current-statement',
      ),
      ...(values['dry-run'] ? { dry_run: true } : {}),
    },
    created_at: new Date().toISOString(),
  };
  const settings = runSettings(values);
  const journal = RunJournal.create(path.resolve(values.journal ?? path.join(runsDirOf(values), runId)), meta);
  return execute(journal, settings, values);
}

export async function resumeCommand({ positionals, values }: ParsedArgs): Promise<number> {
  const dir = values.latest ? latestRun(runsDirOf(values)) : positionals[0];
  if (!dir || positionals.length > 1 || (values.latest && positionals.length > 0)) {
    throw new UsageError('resume takes one journal directory, or --latest');
  }
  const settings = runSettings(values);
  const journal = await RunJournal.open(path.resolve(dir));
  const { input, checksum } = journal.meta;
  if (!existsSync(input)) throw new UsageError(`the run's input ${input} is not here: put it back at that path`);
  if ((await scanFile(input)).checksum !== checksum) {
    journal.close();
    throw new UsageError(`${input} changed since the run started (checksum differs): resume needs the very same file`);
  }
  return execute(journal, settings, values);
}

function runSettings(values: ParsedArgs['values']) {
  return {
    baseUrl: serviceUrl(values),
    apiKey: apiKey(values),
    requestTimeoutMs: intOption(values['request-timeout'], 'request-timeout', 60, 1, 3600) * 1000,
    retryDeadlineMs: intOption(values['retry-deadline'], 'retry-deadline', 600, 0, 7 * 86_400) * 1000,
    progressEveryMs: intOption(values['progress-interval'], 'progress-interval', 10, 1, 3600) * 1000,
    maxOpenAccounts: intOption(values['max-open-accounts'], 'max-open-accounts', 2000, 1, 100_000),
  };
}

async function execute(
  journal: RunJournal,
  s: ReturnType<typeof runSettings>,
  values: ParsedArgs['values'],
): Promise<number> {
  const mode: ProgressMode = values.json ? 'json' : process.stderr.isTTY ? 'bar' : 'lines';
  const progress = new ProgressReporter(mode, s.progressEveryMs, journal.finals.size);
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(EXIT.interrupted);
    stop.abort();
    writeErr('\ndata-import: stopping: requests in flight finish, nothing new is sent (Ctrl-C again to leave now)\n');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let summary: RunSummary;
  try {
    summary = await executeRun(journal, {
      ...s,
      tokens: new TokenSource(s.baseUrl, s.apiKey, serviceFetch),
      fetcher: serviceFetch,
      progress,
      stop: stop.signal,
    });
  } finally {
    journal.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  printSummary(summary, values.json === true);
  return summary.exit_code;
}

function printSummary(s: RunSummary, json: boolean): void {
  if (json) {
    writeOut(jsonLine({ event: 'summary', ...s }));
    return;
  }
  const lines = [
    `run ${s.run_id} (${s.kind}, ${s.input}) in ${s.seconds} s`,
    `  succeeded ${s.succeeded}, already there ${s.skipped}, already there but different ${s.differs}, ` +
      `failed ${s.failed}, unprocessed ${s.unprocessed}, retries ${s.retries}`,
    `  results in ${s.journal}/ (succeeded.ndjson, differs.ndjson, failed.ndjson, unprocessed.ndjson)`,
  ];
  if (s.fatal) lines.push(`  stopped: ${s.fatal}`);
  if (s.interrupted || s.unprocessed > 0) lines.push(`  to continue: data-import resume ${s.journal}`);
  writeOut(lines.join('\n') + '\n');
}

/** The newest run in the runs directory, by the time its run.json says it started. */
function latestRun(runsDir: string): string {
  const runs = existsSync(runsDir)
    ? readdirSync(runsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory() && existsSync(path.join(runsDir, d.name, 'run.json')))
        .map((d) => {
          const dir = path.join(runsDir, d.name);
          return {
            dir,
            at: String((JSON.parse(readFileSync(path.join(dir, 'run.json'), 'utf8')) as RunMeta).created_at),
          };
        })
    : [];
  const newest = runs.sort((a, b) => a.at.localeCompare(b.at)).at(-1);
  if (!newest) throw new UsageError(`no runs in ${runsDir}`);
  return newest.dir;
}
