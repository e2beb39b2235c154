// The one retry policy every request of the client follows (a batch, a reconciliation): each attempt
// gets a fresh token and a time-out; 429, 5xx, network failures and time-outs are tried again with
// exponential back-off and jitter, never sooner than Retry-After asks, until a deadline; a 401 renews
// the token (at most MAX_REAUTH times in a row). What an answer means is the caller's: its attempt
// says done, retry or reauth.
import { TransientError } from '../client-errors';
import type { TokenSource } from './token-source';

export interface RetryPolicy {
  tokens: TokenSource;
  /** Per attempt, until the attempt has its answer in hand. */
  requestTimeoutMs: number;
  /** From the first attempt; past it the request is given up as unfinished. */
  retryDeadlineMs: number;
  /** Set on Ctrl-C: no new attempt starts, waits end at once. */
  stop?: AbortSignal;
  /** Before each wait: why, and how long until the next attempt. */
  onRetry?(reason: string, waitMs: number): void;
}

/** What one attempt came to. */
export type Attempt<T> =
  | { type: 'done'; value: T }
  | { type: 'retry'; reason: string; retryAfterMs?: number }
  | { type: 'reauth'; reason: string };

export type Retried<T> = { type: 'done'; value: T } | { type: 'unfinished'; reason: string };

const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;
/** A token refused again and again after renewals is not a stale token: stop asking. */
const MAX_REAUTH = 3;

/** Runs `attempt` under the policy until it is done, the deadline passes or the stop signal fires. */
export async function withRetries<T>(
  policy: RetryPolicy,
  attempt: (token: string, signal: AbortSignal) => Promise<Attempt<T>>,
): Promise<Retried<T>> {
  const deadline = Date.now() + policy.retryDeadlineMs;
  let reauths = 0;
  for (let n = 0; ; n++) {
    if (policy.stop?.aborted) return { type: 'unfinished', reason: 'interrupted' };
    let token = '';
    let outcome: Attempt<T>;
    try {
      token = await policy.tokens.token();
      outcome = await timed(policy.requestTimeoutMs, (signal) => attempt(token, signal));
    } catch (err) {
      outcome = retryOrThrow(err);
    }
    if (outcome.type === 'reauth') {
      if (++reauths > MAX_REAUTH)
        return { type: 'unfinished', reason: `401 ${outcome.reason} after renewing the token` };
      const failed = await policy.tokens.renew(token).then(() => undefined, retryOrThrow);
      if (!failed) continue;
      outcome = failed;
    }
    if (outcome.type === 'done') return outcome;
    reauths = 0;
    const wait = backoffMs(n, outcome.retryAfterMs);
    if (Date.now() + wait > deadline)
      return { type: 'unfinished', reason: `still ${outcome.reason} at the retry deadline` };
    policy.onRetry?.(outcome.reason, wait);
    await sleep(wait, policy.stop);
  }
}

/** Exponential with "equal jitter" (half fixed, half random), never sooner than Retry-After asks. */
export function backoffMs(attempt: number, retryAfterMs?: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(attempt, 16));
  const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
  // Jitter on top of Retry-After too, so clients told the same second do not all come back at once.
  return retryAfterMs === undefined ? jittered : retryAfterMs + Math.random() * Math.min(1000, ceiling / 2);
}

/** Retry-After in seconds (the service's form) or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  if (/^\d{1,6}$/.test(header.trim())) return Number(header.trim()) * 1000;
  const at = Date.parse(header.slice(0, 100));
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

/** The attempt with a signal that aborts it after `ms`; the timer ends with the attempt. */
async function timed<T>(ms: number, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  try {
    return await run(controller.signal);
  } finally {
    clearTimeout(timer);
  }
}

/** A transient failure becomes a retry; anything else (a refused redirect, a bug) goes on up. */
function retryOrThrow(err: unknown): { type: 'retry'; reason: string; retryAfterMs?: number } {
  if (!isTransient(err)) throw err;
  return {
    type: 'retry',
    reason: describe(err),
    retryAfterMs: retryAfterMs(err instanceof TransientError ? err.retryAfter : null),
  };
}

function isTransient(err: unknown): boolean {
  if (err instanceof TransientError) return true;
  const name = (err as { name?: string } | null)?.name;
  // fetch's network failures are TypeErrors ("fetch failed"); our per-attempt time-out is a TimeoutError.
  const networkFailure =
    name === 'TypeError' && /fetch failed|terminated|other side closed/i.test((err as Error).message);
  return networkFailure || name === 'TimeoutError' || name === 'AbortError';
}

function describe(err: unknown): string {
  const cause = (err as { cause?: { code?: string } }).cause?.code;
  return cause ? `network ${cause}` : (err as Error).message;
}

function sleep(ms: number, stop?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop?.addEventListener('abort', done, { once: true });
  });
}
