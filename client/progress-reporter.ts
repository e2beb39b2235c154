// Progress of a run: a live bar on a terminal (items done, rate, failures, ETA), a plain line every
// few seconds otherwise, or JSON lines with --json. The human forms go to stderr, so stdout carries
// only the summary (or, with --json, only JSON).
import { Presets, SingleBar } from 'cli-progress';
import { jsonLine, writeErr, writeOut } from './terminal-text';
import { describeWaiting, type Waiting } from './wait-reasons';

export interface Counts {
  total: number;
  succeeded: number;
  skipped: number;
  /** Already there, but not as sent (differs.ndjson). */
  differs: number;
  failed: number;
  retries: number;
}

export type ProgressMode = 'bar' | 'lines' | 'json';

/** Milliseconds since some fixed point: Date.now in a run, a hand-moved counter in a test. */
export type Clock = () => number;

export interface ProgressStart {
  /** Items already final before this process started (a resumed run): shown as done, not in the rate. */
  already?: number;
  /** Of those, the failed ones: the failure count goes on from them. */
  earlierFailed?: number;
  clock?: Clock;
}

export class ProgressReporter {
  readonly counts: Counts = { total: 0, succeeded: 0, skipped: 0, differs: 0, failed: 0, retries: 0 };
  private readonly clock: Clock;
  private readonly started: number;
  /** Items final before this process started. */
  private readonly already: number;
  private bar?: SingleBar;
  private timer?: NodeJS.Timeout;
  private waiting?: Waiting;

  constructor(
    private readonly mode: ProgressMode,
    private readonly everyMs: number,
    { already = 0, earlierFailed = 0, clock = Date.now }: ProgressStart = {},
  ) {
    this.clock = clock;
    this.started = clock();
    this.already = already;
    this.counts.failed = earlierFailed;
    this.earlier = already - earlierFailed;
  }

  /** The earlier final items not counted in `counts` (the failed ones are). */
  private readonly earlier: number;

  start(total: number): void {
    this.counts.total = total;
    if (this.mode === 'bar') {
      this.bar = new SingleBar(
        {
          format: '{bar} {percentage}% | {value}/{total} items | {rate}/s | {failed} failed | ETA {left}{waiting}',
          stream: process.stderr,
          hideCursor: true,
          etaBuffer: 50,
          fps: 5,
        },
        Presets.shades_classic,
      );
      this.bar.start(total, this.processed(), { rate: 0, failed: this.counts.failed, left: '?', waiting: '' });
    }
    this.timer = setInterval(() => this.tick(), this.mode === 'bar' ? 500 : this.everyMs);
    this.timer.unref();
  }

  /**
   * What the run waits on (undefined: nothing, an answer came). A new reason is reported at once
   * outside the bar; the bar and every later line carry it until it clears.
   */
  waitingOn(w: Waiting | undefined): void {
    const changed = w?.reason !== this.waiting?.reason;
    this.waiting = w;
    if (!changed || !w || !this.timer) return;
    if (this.mode === 'json') writeOut(jsonLine({ event: 'waiting', reason: w.reason, detail: describeWaiting(w) }));
    else if (this.mode === 'lines') writeErr(`data-import: ${describeWaiting(w)}\n`);
  }

  processed(): number {
    const { succeeded, skipped, differs, failed } = this.counts;
    return this.earlier + succeeded + skipped + differs + failed;
  }

  /** Items per second of this process's own work; reads the clock once, like every figure here. */
  rate(seconds = this.elapsedSeconds()): number {
    return seconds > 0 ? Math.round((this.processed() - this.already) / seconds) : 0;
  }

  /** Done, rate and ETA (seconds, null while the rate is 0) from one reading of the clock. */
  figures(): { processed: number; rate: number; eta: number | null } {
    const processed = this.processed();
    const rate = this.rate(this.elapsedSeconds());
    const left = Math.max(0, this.counts.total - processed);
    return { processed, rate, eta: rate > 0 ? Math.round(left / rate) : null };
  }

  private tick(): void {
    const { processed, rate, eta } = this.figures();
    const waiting = this.waiting ? describeWaiting(this.waiting) : undefined;
    if (this.bar) {
      this.bar.update(processed, {
        rate,
        failed: this.counts.failed,
        left: eta === null ? '?' : `${eta} s`,
        waiting: waiting ? ` | ${waiting}` : '',
      });
      return;
    }
    if (this.mode === 'json') {
      writeOut(jsonLine({ event: 'progress', ...this.counts, processed, rate, eta_seconds: eta, waiting }));
    } else {
      writeErr(
        `data-import: ${processed}/${this.counts.total} items (${this.counts.skipped} already there, ` +
          `${this.counts.differs} differ from what is stored, ${this.counts.failed} failed), ` +
          `${rate}/s, ETA ${eta === null ? '?' : `${eta} s`}${waiting ? `; ${waiting}` : ''}\n`,
      );
    }
  }

  stop(): void {
    clearInterval(this.timer);
    if (this.bar) {
      this.bar.update(this.processed(), { rate: this.rate(), failed: this.counts.failed, left: '0 s', waiting: '' });
      this.bar.stop();
    }
  }

  elapsedSeconds(): number {
    return (this.clock() - this.started) / 1000;
  }
}
