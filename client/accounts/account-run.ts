// The accounts send strategy (behind run-pass.ts's one loop): every line without a final outcome is scheduled
// (`POST /v2/data-import/accounts/`, one account per request, key `<run id>.<hash of its line>`), then
// followed with the v2 status endpoint until it is PROCESSED, ERRORED or another final status. The
// journal is the other kinds' (journal.ndjson, the result files); scheduled.ndjson adds which requests
// the service took, so resume follows those instead of scheduling them again, and re-sends, with its
// own key, a request whose answer was never written down.
//
// Following is in rounds: each round asks once for every account whose next look is due, at most
// `concurrency` requests at a time; an account's looks back off from 1 s to 30 s, and it is first
// looked at when its window opens. At most `maxOpenAccounts` accounts are followed at once: reading
// waits for room, so memory is bounded and the status endpoint sees a bounded number of accounts.
import type { AccountRef, InputEntry } from '../input-reader';
import type { Counts } from '../progress-reporter';
import type { Outcomes, RunJournal } from '../run-journal';
import type { RunSettings } from '../run-settings';
import type { SendStrategy } from '../run-pass';
import { accountStatus, dryRunOutcome, scheduleAccount, type AccountApi, type AccountFinal } from './account-api';
import { accountKey, ScheduledFile } from './scheduled-file';

const FIRST_LOOK_MS = 1000;
const MAX_LOOK_MS = 30_000;

interface Followed {
  entry: InputEntry & { account: AccountRef };
  key: string;
  nextAt: number;
  delayMs: number;
  /** Not given up before this: the later of when following began and when the window opens. */
  since: number;
  /** A dry run's request: its answer is the outcome (a dry run leaves the account's status alone). */
  requestId?: string;
}

/** The send strategy of accounts: each scheduled, then followed to a final status. */
export function accountStrategy(journal: RunJournal, settings: RunSettings): SendStrategy {
  return new AccountStrategy(journal, settings);
}

class AccountStrategy implements SendStrategy {
  private readonly counts: Counts;
  private readonly stopper = new AbortController();
  readonly stop: AbortSignal;
  private readonly api: AccountApi;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly followed = new Map<number, Followed>();
  private readonly scheduled: ScheduledFile;
  private readonly waiters = new Set<() => void>();
  private readDone = false;
  private lastProgressAt = Date.now();
  fatal?: Error;
  unfinished = 0;
  /** The accounts a stopped run had scheduled (scheduled.ndjson), by line. */
  private before = new Map<number, { key: string; windowStart?: string }>();
  private following: Promise<void> = Promise.resolve();

  constructor(
    private readonly journal: RunJournal,
    private readonly settings: RunSettings,
  ) {
    this.counts = settings.progress.counts;
    this.stop = AbortSignal.any([settings.stop, this.stopper.signal]);
    this.stop.addEventListener('abort', () => this.wake(), { once: true });
    this.api = {
      baseUrl: settings.baseUrl,
      runId: journal.meta.run_id,
      tokens: settings.tokens,
      fetcher: settings.fetcher,
      requestTimeoutMs: settings.requestTimeoutMs,
      retryDeadlineMs: settings.retryDeadlineMs,
      stop: this.stop,
      onRetry: () => this.counts.retries++,
    };
    this.scheduled = new ScheduledFile(journal.dir);
  }

  async begin(): Promise<void> {
    this.before = await this.scheduled.read();
    this.following = this.follow();
  }

  async end(): Promise<void> {
    await Promise.all(this.inFlight);
    this.readDone = true;
    this.wake();
    await this.following;
    this.scheduled.close();
  }

  /** A line without a final outcome: failed as it stands, followed (scheduled before), or scheduled. */
  async take(entry: InputEntry): Promise<void> {
    if (entry.problem || !entry.account) {
      this.settle(null, entry, { ok: false, status: 'NOT_SENT', ...entry.problem! });
      return;
    }
    const account = { ...entry, account: entry.account };
    while (this.followed.size >= this.settings.maxOpenAccounts && !this.stop.aborted) await this.nextChange();
    const earlier = this.before.get(entry.line);
    // A dry run is scheduled again on resume: the same key answers its request id.
    if (earlier && !this.journal.meta.options.dry_run)
      this.startFollowing(account, earlier.key, earlier.windowStart, 0);
    else await this.slot(() => this.schedule(account));
  }

  private async schedule(entry: Followed['entry']): Promise<void> {
    const key = accountKey(this.journal.meta.run_id, entry.line);
    if (!this.journal.pending.has(key)) this.journal.recordRequest(key, [entry.line]);
    const answer = await scheduleAccount(this.api, entry.item!, this.journal.meta.options, key);
    if (answer.type === 'unfinished') this.unfinished++;
    else if (answer.type === 'final') this.settle(key, entry, answer.outcome);
    else {
      this.scheduled.add(entry.line, key, answer.windowStart);
      this.startFollowing(entry, key, answer.windowStart, FIRST_LOOK_MS, answer.requestId);
    }
  }

  private startFollowing(
    entry: Followed['entry'],
    key: string,
    windowStart: string | undefined,
    firstMs: number,
    requestId?: string,
  ) {
    const now = Date.now();
    // The window comes from the service's answer: however far ahead it says, the account is looked at
    // within MAX_LOOK_MS, and the deadline counts from then at the latest.
    const opens = Math.min(windowStart ? Date.parse(windowStart) || now : now, now + MAX_LOOK_MS);
    const nextAt = Math.max(now + firstMs, opens);
    const since = Math.max(now, opens);
    const dryRun = this.journal.meta.options.dry_run && requestId ? { requestId } : {};
    this.followed.set(entry.line, { entry, key, nextAt, delayMs: FIRST_LOOK_MS, since, ...dryRun });
    this.wake();
  }

  /** Rounds of status looks until nothing is left to follow (or the run stops). */
  private async follow(): Promise<void> {
    while (!this.stop.aborted) {
      if (this.readDone && this.followed.size === 0) return;
      const now = Date.now();
      const due = [...this.followed.values()].filter((f) => f.nextAt <= now);
      const round: Promise<void>[] = [];
      for (const f of due) {
        if (this.stop.aborted) break;
        round.push((await this.slot(() => this.look(f))).running);
      }
      await Promise.all(round);
      let next = Infinity;
      for (const f of this.followed.values()) next = Math.min(next, f.nextAt);
      // Checked again right before waiting: the read may have ended while this round ran.
      if (this.readDone && this.followed.size === 0) return;
      if (due.length === 0 || next > Date.now()) await this.nextChange(Number.isFinite(next) ? next : undefined);
    }
  }

  private async look(f: Followed): Promise<void> {
    const answer =
      f.requestId === undefined
        ? await accountStatus(this.api, f.entry.account)
        : await dryRunOutcome(this.api, f.requestId);
    const now = Date.now();
    if (answer.type === 'final') {
      this.followed.delete(f.entry.line);
      this.lastProgressAt = now;
      this.settle(f.key, f.entry, answer.outcome);
      this.wake();
      return;
    }
    const quietSince = Math.max(f.since, this.lastProgressAt);
    if (answer.type === 'unfinished' || now - quietSince > this.settings.retryDeadlineMs) {
      // Left for resume, which follows it again (scheduled.ndjson has it).
      if (!this.stop.aborted) this.unfinished++;
      this.followed.delete(f.entry.line);
      this.wake();
      return;
    }
    f.delayMs = Math.min(MAX_LOOK_MS, f.delayMs * 2);
    f.nextAt = now + f.delayMs;
  }

  /** Runs `work` once fewer than `concurrency` requests are in flight; an error stops the run. */
  private async slot(work: () => Promise<void>): Promise<{ running: Promise<void> }> {
    while (this.inFlight.size >= this.journal.meta.concurrency) await Promise.race(this.inFlight);
    const running: Promise<void> = work()
      .catch((err: unknown) => {
        this.fatal ??= err as Error;
        this.stopper.abort();
      })
      .finally(() => this.inFlight.delete(running));
    this.inFlight.add(running);
    return { running };
  }

  /** Resolves when something changes (an account starts or ends being followed, the run stops) or at `until`. */
  private nextChange(until?: number): Promise<void> {
    if (this.stop.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      // Never longer than MAX_LOOK_MS (a timer past 2^31 ms would fire at once, and the loop spin).
      const timer = setTimeout(done, Math.min(MAX_LOOK_MS, Math.max(0, (until ?? Infinity) - Date.now())));
      this.waiters.add(done);
    });
  }

  private wake(): void {
    for (const done of [...this.waiters]) done();
  }

  private settle(key: string | null, entry: InputEntry, outcome: AccountFinal): void {
    const item = entry.item ?? {};
    const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, 128) : undefined);
    const base = {
      line: entry.line,
      import_supplier: text(item.import_supplier),
      external_account_number: text(item.external_account_number),
    };
    const results: Outcomes = { succeeded: [], differs: [], failed: [] };
    if (outcome.ok) {
      const number = outcome.platform_account_number;
      results.succeeded.push({
        ...base,
        status: outcome.status,
        ...(number ? { id: number, platform_account_number: number } : {}),
      });
      if (/ALREADY_EXISTS$/.test(outcome.status)) this.counts.skipped++;
      else this.counts.succeeded++;
    } else {
      const { ok: _ok, ...failure } = outcome;
      results.failed.push({ ...base, ...failure, ...(entry.item ? { record: entry.item } : {}) });
      this.counts.failed++;
    }
    this.journal.recordOutcome(key, results);
  }
}
