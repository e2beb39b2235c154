// What `send` and `resume` share once their journal is open: the settings of this pass, the run itself
// under Ctrl-C handling, and the printed summary. Ctrl-C stops reading and starting requests, lets those
// in flight finish, and says how to resume; a second Ctrl-C leaves at once (the journal has everything).
import path from 'node:path';
import { apiKey, serviceUrl } from './cli/connection';
import { EXIT } from './client-errors';
import { serviceFetch } from './http/service-fetch';
import { TokenSource } from './http/token-source';
import { ProgressReporter, type ProgressMode } from './progress-reporter';
import { declareRun } from './run-declaration';
import { readRecords, type RunJournal } from './run-journal';
import type { RunSummary } from './run-summary';
import { executeRun } from './send-run';
import { jsonLine, writeErr, writeOut } from './terminal-text';
import { PROGRAM } from './cli/program';

/** The options of a pass over a run that the journal does not hold (see RUN_SETTINGS, CONNECTION). */
export interface PassOptions {
  url?: string;
  'allow-insecure-http'?: boolean;
  'api-key-file'?: string;
  'request-timeout': number;
  'retry-deadline': number;
  'progress-interval': number;
  'max-open-accounts': number;
  json?: boolean;
}

export function passSettings(values: PassOptions) {
  return {
    baseUrl: serviceUrl(values),
    apiKey: apiKey(values),
    requestTimeoutMs: values['request-timeout'] * 1000,
    retryDeadlineMs: values['retry-deadline'] * 1000,
    progressEveryMs: values['progress-interval'] * 1000,
    maxOpenAccounts: values['max-open-accounts'],
    json: values.json === true,
  };
}

export async function executePass(journal: RunJournal, s: ReturnType<typeof passSettings>): Promise<number> {
  const mode: ProgressMode = s.json ? 'json' : process.stderr.isTTY ? 'bar' : 'lines';
  let earlierFailed = 0;
  for await (const _ of readRecords(path.join(journal.dir, 'failed.ndjson'))) earlierFailed++;
  const progress = new ProgressReporter(mode, s.progressEveryMs, { already: journal.finals.size, earlierFailed });
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(EXIT.interrupted);
    stop.abort();
    writeErr('\ndata-import: stopping: requests in flight finish, nothing new is sent (Ctrl-C again to leave now)\n');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let summary: RunSummary;
  const url = runUrl(s.baseUrl, journal.meta.run_id);
  if (s.json) writeOut(jsonLine({ event: 'run', run_id: journal.meta.run_id, run_url: url }));
  else writeErr(`data-import: run ${journal.meta.run_id}; the service's view of it: ${url}\n`);
  const tokens = new TokenSource(s.baseUrl, s.apiKey, serviceFetch);
  // Alongside the run's first requests (one sign-in serves both); its outcome does not matter to the run.
  const declared = declareRun({ ...s, tokens, fetcher: serviceFetch }, journal.meta);
  try {
    summary = await executeRun(journal, { ...s, tokens, fetcher: serviceFetch, progress, stop: stop.signal });
    await declared;
  } finally {
    journal.close();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  printSummary(summary, url, s.json);
  return summary.exit_code;
}

/** The service's view of the run (its ledger of what every request of this run id came to). */
const runUrl = (baseUrl: string, runId: string) => `${baseUrl}/v1/data-import/runs/${encodeURIComponent(runId)}/`;

function printSummary(s: RunSummary, url: string, json: boolean): void {
  if (json) {
    writeOut(jsonLine({ event: 'summary', ...s, run_url: url }));
    return;
  }
  const lines = [
    `run ${s.run_id} (${s.kind}, ${s.input}) in ${s.seconds} s`,
    `  succeeded ${s.succeeded}, already there ${s.skipped}, already there but different ${s.differs}, ` +
      `failed ${s.failed}, unprocessed ${s.unprocessed}, retries ${s.retries}`,
    `  results in ${s.journal}/ (succeeded.ndjson, differs.ndjson, failed.ndjson, unprocessed.ndjson)`,
    `  on the service: ${url}`,
  ];
  if (s.fatal) lines.push(`  stopped: ${s.fatal}`);
  if (s.interrupted || s.unprocessed > 0) lines.push(`  to continue: ${PROGRAM} resume ${s.journal}`);
  writeOut(lines.join('\n') + '\n');
}
