// One pass of a run over its input, through the one loop of run-pass.ts with the kind's strategy: for
// notes, transactions, statements and payment instructions, items batched per account (BatchStrategy
// below: re-sends the requests a stopped run left open with their own keys, sends every other line
// without a final outcome); for accounts, scheduled and followed (accounts/account-run.ts). `send` and
// `resume` both end here; they differ only in how the journal was opened.
import { createHash } from 'node:crypto';
import { accountStrategy } from './accounts/account-run';
import { AccountBatcher, type Batch } from './account-batcher';
import type { ItemOutcome } from './answer-classifier';
import { sendBatch, type SenderDeps } from './batch-sender';
import type { InputEntry } from './input-reader';
import { KIND_SPECS, type Kind } from './item-kinds';
import type { Counts } from './progress-reporter';
import type { Outcomes, RunJournal, RunMeta } from './run-journal';
import type { RunSettings } from './run-settings';
import { runPass, type SendStrategy } from './run-pass';
import type { RunSummary } from './run-summary';

/** Deterministic: the same lines of the same run always travel under the same key. */
function idempotencyKey(runId: string, lines: number[]): string {
  return `${runId}.${createHash('sha256').update(lines.join(',')).digest('hex').slice(0, 32)}`;
}

/** A pass of any kind: one loop (run-pass.ts), the kind's strategy. */
export function executeRun(journal: RunJournal, settings: RunSettings): Promise<RunSummary> {
  const { kind } = journal.meta;
  const strategy =
    kind === 'accounts' ? accountStrategy(journal, settings) : new BatchStrategy(journal, settings, kind);
  return runPass(journal, settings, strategy);
}

/**
 * Items batched per account into requests of up to `batch`, `concurrency` in flight: what is in flight,
 * what a stopped run left open, what stopped this one.
 */
class BatchStrategy implements SendStrategy {
  private readonly meta: RunMeta;
  private readonly counts: Counts;
  /** Fires on Ctrl-C or when a request meets an error that ends the run. */
  private readonly stopper = new AbortController();
  readonly stop: AbortSignal;
  private readonly deps: SenderDeps;
  private readonly inFlight = new Set<Promise<void>>();
  /** One-item kinds: each account's latest request, which the next one of that account waits for. */
  private readonly accountTail = new Map<string, Promise<void>>();
  /** Requests a stopped run left open, by each of their lines; collected as the lines come by. */
  private readonly openByLine = new Map<number, string>();
  private readonly collected = new Map<string, InputEntry[]>();
  private readonly batcher: AccountBatcher;
  fatal?: Error;
  /** Items whose request reached the retry deadline: left for resume. */
  unfinished = 0;

  constructor(
    private readonly journal: RunJournal,
    private readonly settings: RunSettings,
    private readonly kind: Kind,
  ) {
    this.meta = journal.meta;
    this.counts = settings.progress.counts;
    this.stop = AbortSignal.any([settings.stop, this.stopper.signal]);
    this.deps = {
      baseUrl: settings.baseUrl,
      runId: this.meta.run_id,
      tokens: settings.tokens,
      fetcher: settings.fetcher,
      options: this.meta.options,
      requestTimeoutMs: settings.requestTimeoutMs,
      retryDeadlineMs: settings.retryDeadlineMs,
      stop: this.stop,
      onRetry: (reason, waitMs) => {
        this.counts.retries++;
        settings.progress.waitingOn({ reason, retryAt: Date.now() + waitMs });
      },
    };
    for (const [key, lines] of journal.pending) lines.forEach((line) => this.openByLine.set(line, key));
    const batchSize = KIND_SPECS[kind].listField ? this.meta.batch : 1;
    this.batcher = new AccountBatcher(batchSize, settings.maxOpenAccounts);
  }

  async begin(): Promise<void> {}

  async end(stopped: boolean): Promise<void> {
    if (!stopped) {
      for (const [key, entries] of this.collected) await this.dispatch(batchOf(entries), key);
      for (const ready of this.batcher.drain()) await this.dispatch(ready);
    }
    await Promise.all(this.inFlight);
  }

  /** One line without a final outcome: back into its open request, failed as it stands, or batched. */
  async take(entry: InputEntry): Promise<void> {
    const openKey = this.openByLine.get(entry.line);
    if (openKey !== undefined && entry.account) {
      const got = this.collected.get(openKey) ?? [];
      got.push(entry);
      this.collected.set(openKey, got);
      if (got.length === this.journal.pending.get(openKey)!.length) {
        this.collected.delete(openKey);
        await this.dispatch(batchOf(got), openKey);
      }
    } else if (entry.problem || !entry.account) {
      this.settle(null, [withAccountOf(entry)], [{ ok: false, ...entry.problem! }]);
    } else {
      for (const ready of this.batcher.add(entry)) await this.dispatch(ready);
    }
  }

  /** Starts a batch once fewer than `concurrency` are in flight; a new batch is journalled first. */
  private async dispatch(batch: Batch, key?: string): Promise<void> {
    while (this.inFlight.size >= this.meta.concurrency) await Promise.race(this.inFlight);
    const requestKey = key ?? this.journalled(batch.entries);
    // Two payment instructions for one account must reach the service in file order (the second may
    // replace or conflict with the first): a one-item request waits for its account's previous one.
    const account = KIND_SPECS[this.kind].listField ? undefined : JSON.stringify(batch.account);
    const previous = account === undefined ? undefined : this.accountTail.get(account);
    const send = () => this.sendUntilSettled(batch.entries, batch.account, requestKey);
    const running: Promise<void> = (previous ? previous.then(send) : send())
      .catch((err: unknown) => {
        this.fatal ??= err as Error;
        this.stopper.abort();
      })
      .finally(() => {
        this.inFlight.delete(running);
        if (account !== undefined && this.accountTail.get(account) === running) this.accountTail.delete(account);
      });
    this.inFlight.add(running);
    if (account !== undefined) this.accountTail.set(account, running);
  }

  /** A new request's key, written to the journal before the request is sent. */
  private journalled(entries: InputEntry[]): string {
    const lines = entries.map((e) => e.line);
    const key = idempotencyKey(this.meta.run_id, lines);
    this.journal.recordRequest(key, lines);
    return key;
  }

  private async sendUntilSettled(entries: InputEntry[], account: Batch['account'], key: string): Promise<void> {
    // Each round either settles the batch or removes at least one item from it: at most `batch` rounds.
    for (;;) {
      const items = entries.map((e) => e.item!);
      const result = await sendBatch(this.deps, this.kind, account, items, key);
      if (result.type === 'unfinished') {
        this.unfinished += entries.length;
        return;
      }
      if (result.type === 'final') return this.settle(key, entries, result.outcomes, result.requestId);
      this.settle(
        key,
        entries,
        entries.map((_, i) => result.outcomes.get(i)),
        result.requestId,
      );
      entries = result.rest.map((i) => entries[i]!);
      key = this.journalled(entries);
    }
  }

  /** Writes the items' final outcomes (those that have one) and counts them. */
  private settle(
    key: string | null,
    entries: InputEntry[],
    outcomes: (ItemOutcome | undefined)[],
    requestId?: string,
  ): void {
    // An answer that settles items: whatever the run was waiting on is over.
    if (key !== null) this.settings.progress.waitingOn(undefined);
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
        if (o.differs) this.counts.differs++;
        else if (/ALREADY_EXISTS$/.test(o.status)) this.counts.skipped++;
        else this.counts.succeeded++;
        (o.differs ? results.differs : results.succeeded).push(record);
      } else {
        // The line as it was read and the service's request id: enough to fix it, or to ask support.
        const sent = { ...(requestId ? { request_id: requestId } : {}), ...(entry.item ? { record: entry.item } : {}) };
        results.failed.push({ ...base, code: o.code, attr: o.attr, detail: o.detail, ...sent });
        this.counts.failed++;
      }
    });
    this.journal.recordOutcome(key, results);
  }
}

const batchOf = (entries: InputEntry[]): Batch => ({ account: entries[0]!.account!, entries });

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
