// The end of a run: unprocessed.ndjson (every line still without a final outcome, joined to its
// account) and the summary, counted from the result files so a resumed run reports the whole run.
import path from 'node:path';
import { EXIT } from './client-errors';
import { readEntries } from './input-reader';
import { readRecords, type ResultRecord, type RunJournal } from './run-journal';

export interface RunSummary {
  run_id: string;
  journal: string;
  kind: string;
  input: string;
  succeeded: number;
  skipped: number;
  /** Lines the service already had with other values (differs.ndjson): they need a look, so exit 1. */
  differs: number;
  failed: number;
  unprocessed: number;
  retries: number;
  seconds: number;
  interrupted: boolean;
  fatal?: string;
  exit_code: number;
}

export async function summarise(
  journal: RunJournal,
  run: { interrupted: boolean; fatal?: string; unfinished: number; retries: number; seconds: number },
): Promise<RunSummary> {
  const unprocessed: ResultRecord[] = [];
  for await (const entry of readEntries(journal.meta.input, journal.meta.format)) {
    if (journal.finals.has(entry.line)) continue;
    const item = entry.item ?? {};
    unprocessed.push({
      line: entry.line,
      import_supplier: typeof item.import_supplier === 'string' ? item.import_supplier.slice(0, 128) : undefined,
      external_account_number:
        typeof item.external_account_number === 'string' ? item.external_account_number.slice(0, 128) : undefined,
      reason: run.interrupted
        ? 'the run stopped before this line had a final answer'
        : 'no final answer before the retry deadline',
    });
  }
  journal.writeUnprocessed(unprocessed);
  let succeeded = 0;
  let skipped = 0;
  let failed = 0;
  for await (const r of readRecords(path.join(journal.dir, 'succeeded.ndjson'))) {
    if (/ALREADY_EXISTS$/.test(String((r as { status?: unknown }).status))) skipped++;
    else succeeded++;
  }
  for await (const _ of readRecords(path.join(journal.dir, 'failed.ndjson'))) failed++;
  let differs = 0;
  for await (const _ of readRecords(path.join(journal.dir, 'differs.ndjson'))) differs++;
  const stopped = run.interrupted || run.fatal !== undefined;
  return {
    run_id: journal.meta.run_id,
    journal: journal.dir,
    kind: journal.meta.kind,
    input: journal.meta.input,
    succeeded,
    skipped,
    differs,
    failed,
    unprocessed: unprocessed.length,
    retries: run.retries,
    seconds: Math.round(run.seconds * 10) / 10,
    interrupted: stopped,
    ...(run.fatal ? { fatal: run.fatal } : {}),
    exit_code: stopped ? EXIT.interrupted : failed + differs + unprocessed.length > 0 ? EXIT.itemsFailed : EXIT.ok,
  };
}
