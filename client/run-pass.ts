// The one run loop every kind goes through: read the input line by line (repeats marked before anything
// is sent), hand each line without a final outcome to the kind's send strategy, and once reading ends
// (or the run stops) let the strategy finish what it started; then write the summary. What differs
// between kinds is only the strategy: items batched per account into requests (send-run.ts), or
// accounts scheduled one by one and followed to a final status (accounts/account-run.ts).
import { FatalError } from './client-errors';
import { readEntries, type InputEntry } from './input-reader';
import { markRepeats, tooManyKeys } from './item-identity';
import type { RunJournal } from './run-journal';
import type { RunSettings } from './run-settings';
import { summarise, type RunSummary } from './run-summary';

export interface SendStrategy {
  /** Fires on Ctrl-C or on an error that ends the run: reading stops. */
  readonly stop: AbortSignal;
  /** Before the first line (an accounts run reads which accounts it had scheduled, and starts following). */
  begin(): Promise<void>;
  /** One line without a final outcome; returns once there is room for the next. */
  take(entry: InputEntry): Promise<void>;
  /** After the last line read, or the stop: sends what is left (unless stopped) and waits for it. */
  end(stopped: boolean): Promise<void>;
  /** What ended the run, if anything did. */
  readonly fatal?: Error;
  /** Lines left without a final outcome at the retry deadline (for resume). */
  readonly unfinished: number;
}

export async function runPass(journal: RunJournal, settings: RunSettings, strategy: SendStrategy): Promise<RunSummary> {
  const { meta } = journal;
  const { progress } = settings;
  // A CSV header is a line but not an item.
  progress.start(meta.format === 'csv' ? meta.lines - 1 : meta.lines);
  try {
    await strategy.begin();
    for await (const entry of markRepeats(meta.kind, readEntries(meta.input, meta.format), tooManyKeys)) {
      if (strategy.stop.aborted) break;
      if (!journal.finals.has(entry.line)) await strategy.take(entry);
    }
  } finally {
    await strategy.end(strategy.stop.aborted);
    progress.stop();
  }
  if (strategy.fatal && !(strategy.fatal instanceof FatalError)) throw strategy.fatal;
  return summarise(journal, {
    interrupted: strategy.stop.aborted,
    fatal: strategy.fatal?.message,
    unfinished: strategy.unfinished,
    retries: progress.counts.retries,
    seconds: progress.elapsedSeconds(),
  });
}
