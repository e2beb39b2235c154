// One pass of a run over its input: sends every line that has no final outcome yet (all of them for a
// new run), re-sends the requests a stopped run left open with their own keys, and writes the result
// files. `send` and `resume` both end here; they differ only in how the journal was opened.
import { createHash } from 'node:crypto';
import { AccountBatcher, type Batch } from './account-batcher';
import { sendBatch, type SenderDeps } from './batch-sender';
import type { ItemOutcome } from './answer-classifier';
import { FatalError } from './client-errors';
import { readEntries, type InputEntry } from './input-reader';
import { KIND_SPECS } from './item-kinds';
import { ProgressReporter } from './progress-reporter';
import type { Outcomes, RunJournal } from './run-journal';
import { summarise, type RunSummary } from './run-summary';
import type { Fetcher } from './service-fetch';
import type { TokenSource } from './token-source';

export interface RunSettings {
  baseUrl: string;
  tokens: TokenSource;
  fetcher: Fetcher;
  progress: ProgressReporter;
  requestTimeoutMs: number;
  retryDeadlineMs: number;
  /** Accounts whose batch may stay open while the file is read (see AccountBatcher). */
  maxOpenAccounts: number;
  /** Aborted on Ctrl-C: reading stops, requests in flight finish, nothing new starts. */
  stop: AbortSignal;
}

/** Deterministic: the same lines of the same run always travel under the same key. */
function idempotencyKey(runId: string, lines: number[]): string {
  return `${runId}.${createHash('sha256').update(lines.join(',')).digest('hex').slice(0, 32)}`;
}

export async function executeRun(journal: RunJournal, settings: RunSettings): Promise<RunSummary> {
  const { meta } = journal;
  const stopper = new AbortController();
  const stop = AbortSignal.any([settings.stop, stopper.signal]);
  let fatal: Error | undefined;
  const deps: SenderDeps = {
    baseUrl: settings.baseUrl,
    runId: meta.run_id,
    tokens: settings.tokens,
    fetcher: settings.fetcher,
    options: meta.options,
    requestTimeoutMs: settings.requestTimeoutMs,
    retryDeadlineMs: settings.retryDeadlineMs,
    stop,
    onRetry: () => settings.progress.counts.retries++,
  };
  const counts = settings.progress.counts;
  const inFlight = new Set<Promise<void>>();
  let unfinished = 0;

  const settle = (key: string | null, entries: InputEntry[], outcomes: (ItemOutcome | undefined)[]) => {
    const results: Outcomes = { succeeded: [], differs: [], failed: [] };
    entries.forEach((entry, i) => {
      const o = outcomes[i];
      if (!o) return;
      const base = {
        line: entry.line,
        import_supplier: entry.account?.import_supplier,
        external_account_number: entry.account?.external_account_number,
      };
      if (o.ok) {
        const record = { ...base, status: o.status, ...(o.id === undefined ? {} : { id: o.id }) };
        if (o.differs) counts.differs++;
        else if (/ALREADY_EXISTS$/.test(o.status)) counts.skipped++;
        else counts.succeeded++;
        (o.differs ? results.differs : results.succeeded).push(record);
      } else {
        results.failed.push({ ...base, code: o.code, attr: o.attr, detail: o.detail });
        counts.failed++;
      }
    });
    journal.recordOutcome(key, results);
  };

  const sendUntilSettled = async (batch: Batch, firstKey: string): Promise<void> => {
    let entries = batch.entries;
    let key = firstKey;
    // Each round either settles the batch or removes at least one item from it: at most `batch` rounds.
    for (;;) {
      const result = await sendBatch(
        deps,
        meta.kind,
        batch.account,
        entries.map((e) => e.item!),
        key,
      );
      if (result.type === 'unfinished') {
        unfinished += entries.length;
        return;
      }
      if (result.type === 'final') return settle(key, entries, result.outcomes);
      settle(
        key,
        entries,
        entries.map((_, i) => result.outcomes.get(i)),
      );
      entries = result.rest.map((i) => entries[i]!);
      key = idempotencyKey(
        meta.run_id,
        entries.map((e) => e.line),
      );
      journal.recordRequest(
        key,
        entries.map((e) => e.line),
      );
    }
  };

  const dispatch = async (batch: Batch, key?: string): Promise<void> => {
    while (inFlight.size >= meta.concurrency) await Promise.race(inFlight);
    if (key === undefined) {
      key = idempotencyKey(
        meta.run_id,
        batch.entries.map((e) => e.line),
      );
      journal.recordRequest(
        key,
        batch.entries.map((e) => e.line),
      );
    }
    const running = sendUntilSettled(batch, key)
      .catch((err: unknown) => {
        fatal ??= err as Error;
        stopper.abort();
      })
      .finally(() => inFlight.delete(running));
    inFlight.add(running);
  };

  // Requests a stopped run left open: collected from the file as their lines come by, then re-sent.
  const openByLine = new Map<number, string>();
  const collected = new Map<string, InputEntry[]>();
  for (const [key, lines] of journal.pending) lines.forEach((line) => openByLine.set(line, key));

  const batchSize = KIND_SPECS[meta.kind].listField ? meta.batch : 1;
  const batcher = new AccountBatcher(batchSize, settings.maxOpenAccounts);
  // The CSV header is a line but not an item.
  settings.progress.start(meta.format === 'csv' ? meta.lines - 1 : meta.lines);
  for await (const entry of readEntries(meta.input, meta.format)) {
    if (stop.aborted) break;
    if (journal.finals.has(entry.line)) continue;
    const openKey = openByLine.get(entry.line);
    if (openKey !== undefined && entry.account) {
      const got = collected.get(openKey) ?? [];
      got.push(entry);
      collected.set(openKey, got);
      if (got.length === journal.pending.get(openKey)!.length) {
        collected.delete(openKey);
        await dispatch({ account: entry.account, entries: got }, openKey);
      }
    } else if (entry.problem || !entry.account) {
      settle(null, [withAccountOf(entry)], [{ ok: false, ...entry.problem! }]);
    } else {
      for (const ready of batcher.add(entry)) await dispatch(ready);
    }
  }
  if (!stop.aborted) {
    for (const [key, entries] of collected) await dispatch({ account: entries[0]!.account!, entries }, key);
    for (const ready of batcher.drain()) await dispatch(ready);
  }
  await Promise.all(inFlight);
  settings.progress.stop();
  if (fatal && !(fatal instanceof FatalError)) throw fatal;
  return summarise(journal, {
    interrupted: stop.aborted,
    fatal: fatal?.message,
    unfinished,
    retries: counts.retries,
    seconds: settings.progress.elapsedSeconds(),
  });
}

/** A line that failed before sending still names its account when it had one. */
function withAccountOf(entry: InputEntry): InputEntry {
  const item = entry.item ?? {};
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, 128) : undefined);
  return {
    ...entry,
    account: {
      import_supplier: str(item.import_supplier) as string,
      external_account_number: str(item.external_account_number) as string,
    },
  };
}
