// Sends one batch until it has an answer that decides its items: retries 429, 5xx, 503 and network
// errors with the same Idempotency-Key (so a retry can never double a batch: the service replays the
// stored answer or runs a request that wrote nothing), with exponential back-off and jitter, waiting
// at least Retry-After, until a deadline; renews the token on 401.
import { classifyAnswer, retryAfterMs, type Verdict } from './answer-classifier';
import { buildBody, buildQuery, KIND_SPECS, type Kind, type SendOptions } from './item-kinds';
import type { AccountRef } from './input-reader';
import { readBounded, type Fetcher } from './service-fetch';
import { TransientError, type TokenSource } from './token-source';

export interface SenderDeps {
  baseUrl: string;
  runId: string;
  tokens: TokenSource;
  fetcher: Fetcher;
  options: SendOptions;
  /** Per attempt; above the service's RESULT_WAIT_MS (25 s), so a queued write answers before we give up. */
  requestTimeoutMs: number;
  /** From the batch's first attempt; past it the batch is left unfinished for resume. */
  retryDeadlineMs: number;
  /** Set on Ctrl-C: no new attempt starts, waits end at once. */
  stop: AbortSignal;
  onRetry(reason: string): void;
}

export type SendResult =
  Exclude<Verdict, { type: 'retry' } | { type: 'reauth' }> | { type: 'unfinished'; reason: string };

const BASE_DELAY_MS = 250;
const MAX_DELAY_MS = 30_000;
/** A token refused twice in a row after renewals is not a stale token: stop asking. */
const MAX_REAUTH = 3;
/**
 * An answer echoes at most 1,000 items of a 5 MiB body, so it is a few MiB; a longer one is read as no
 * answer at all (a 2xx of it then retries rather than counting anything as stored).
 */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export async function sendBatch(
  deps: SenderDeps,
  kind: Kind,
  account: AccountRef,
  items: Record<string, unknown>[],
  key: string,
): Promise<SendResult> {
  const url = deps.baseUrl + KIND_SPECS[kind].path + buildQuery(kind, deps.options);
  const body = JSON.stringify(buildBody(kind, account, items, deps.options));
  const deadline = Date.now() + deps.retryDeadlineMs;
  let reauths = 0;
  for (let attempt = 0; ; attempt++) {
    if (deps.stop.aborted) return { type: 'unfinished', reason: 'interrupted' };
    let verdict: Verdict;
    let token = '';
    try {
      token = await deps.tokens.token();
      const res = await deps.fetcher(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          authorization: `Token ${token}`,
          'idempotency-key': key,
          'data-import-run-id': deps.runId,
        },
        body,
        signal: AbortSignal.timeout(deps.requestTimeoutMs),
      });
      const text = await readBounded(res, MAX_ANSWER_BYTES);
      verdict = classifyAnswer(kind, res.status, parseJson(text), res.headers.get('retry-after'), items);
    } catch (err) {
      if (!isTransient(err)) throw err;
      verdict = {
        type: 'retry',
        reason: describe(err),
        retryAfterMs: retryAfterMs(err instanceof TransientError ? err.retryAfter : null),
      };
    }
    if (verdict.type === 'reauth') {
      if (++reauths > MAX_REAUTH)
        return { type: 'unfinished', reason: `401 ${verdict.reason} after renewing the token` };
      const renewed = await deps.tokens.renew(token).then(
        () => undefined,
        (err: unknown) => {
          if (!isTransient(err)) throw err;
          return { type: 'retry' as const, reason: describe(err) };
        },
      );
      if (!renewed) continue;
      verdict = renewed;
    }
    if (verdict.type !== 'retry') return verdict;
    reauths = 0;
    const wait = backoffMs(attempt, verdict.retryAfterMs);
    if (Date.now() + wait > deadline)
      return { type: 'unfinished', reason: `still ${verdict.reason} at the retry deadline` };
    deps.onRetry(verdict.reason);
    await sleep(wait, deps.stop);
  }
}

/** Exponential with "equal jitter" (half fixed, half random), never sooner than Retry-After asks. */
export function backoffMs(attempt: number, retryAfterMs?: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** Math.min(attempt, 16));
  const jittered = ceiling / 2 + Math.random() * (ceiling / 2);
  // Jitter on top of Retry-After too, so clients told the same second do not all come back at once.
  return retryAfterMs === undefined ? jittered : retryAfterMs + Math.random() * Math.min(1000, ceiling / 2);
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

function parseJson(text: string | undefined): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return undefined;
  }
}

function sleep(ms: number, stop: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      stop.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    stop.addEventListener('abort', done, { once: true });
  });
}
