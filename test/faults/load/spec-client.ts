// A client that behaves as the spec tells migration scripts to: a 500 or a 503 (and a dropped
// connection, whose outcome is unknown) is retried as it is, with the same Idempotency-Key, honouring
// Retry-After; a 400 is final and never retried. Every attempt is recorded with its timing.
// A request that posting again could double (no key and check_previously_added=false) follows the
// README instead: it polls a 503's Location for the answer, and after a connection that dropped once
// the request was sent it stops, its outcome unknown.

export interface Attempt {
  startedAt: number;
  endedAt: number;
  /** HTTP status, or 0 when no response came (connection refused or reset). */
  status: number;
  code?: string;
}

export type OutcomeKind = 'acked' | 'rejected' | 'unexpected' | 'gave_up' | 'unknown';

export interface Outcome {
  kind: OutcomeKind;
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  attempts: Attempt[];
}

export interface SpecRequest {
  path: string;
  body: unknown;
  idempotencyKey?: string;
  /** False when a second post could apply the work twice: no key and check_previously_added=false. */
  repostIsSafe?: boolean;
}

export interface ClientOptions {
  baseUrl: string;
  token: string;
  /** Epoch ms after which the client stops retrying (the request then counts as not completed). */
  deadline: number;
  /** A response slower than this is a hang: the attempt is aborted and recorded with status -1. */
  hangMs: number;
}

// -1 (no answer within hangMs) is retried too, but the suite counts it as a broken latency bound.
const RETRIED = new Set([-1, 0, 429, 500, 502, 503, 504]);
const MAX_BACKOFF_MS = 1_000;

export async function sendAsSpecSays(req: SpecRequest, opts: ClientOptions): Promise<Outcome> {
  const attempts: Attempt[] = [];
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Token ${opts.token}` };
  if (req.idempotencyKey) headers['idempotency-key'] = req.idempotencyKey;
  const payload = JSON.stringify(req.body);
  const repostIsSafe = req.repostIsSafe ?? true;
  for (let n = 0; ; n++) {
    let answer = await attempt(opts, attempts, req.path, { method: 'POST', headers, body: payload });
    if (!repostIsSafe && answer.attempt.status === 503 && answer.location) {
      answer = await pollLocation(answer.location, opts, attempts);
    }
    const { status } = answer.attempt;
    if (status === 201 || status === 200) return { kind: 'acked', status, body: answer.body, attempts };
    if (status === 400) return { kind: 'rejected', status, body: answer.body, attempts };
    if (!RETRIED.has(status)) return { kind: 'unexpected', status, body: answer.body, attempts };
    // A connection refused never delivered the request; any other drop may have.
    if (!repostIsSafe && status <= 0 && !answer.refused) return { kind: 'unknown', status, body: undefined, attempts };
    const backoff = answer.retryAfterMs ?? Math.min(100 * 2 ** n, MAX_BACKOFF_MS);
    if (Date.now() + backoff > opts.deadline) return { kind: 'gave_up', status, body: answer.body, attempts };
    await sleep(backoff);
  }
}

interface Answer {
  attempt: Attempt;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  retryAfterMs?: number;
  location?: string;
  refused?: boolean;
}

/**
 * GETs the Location until the request has a final answer (anything but 503 result_pending), or the
 * deadline. A stored 503 queue_unavailable or 500 means nothing was done: the caller posts again.
 */
async function pollLocation(location: string, opts: ClientOptions, attempts: Attempt[]): Promise<Answer> {
  const headers = { authorization: `Token ${opts.token}` };
  for (let n = 0; ; n++) {
    const answer = await attempt(opts, attempts, location, { method: 'GET', headers });
    const pending =
      answer.attempt.status === 503 ? answer.attempt.code === 'result_pending' : RETRIED.has(answer.attempt.status);
    const backoff = answer.retryAfterMs ?? Math.min(100 * 2 ** n, MAX_BACKOFF_MS);
    if (!pending || Date.now() + backoff > opts.deadline) return answer;
    await sleep(backoff);
  }
}

async function attempt(opts: ClientOptions, attempts: Attempt[], path: string, init: RequestInit): Promise<Answer> {
  const record: Attempt = { startedAt: Date.now(), endedAt: 0, status: 0 };
  attempts.push(record);
  const answer: Answer = { attempt: record, body: undefined };
  try {
    const res = await fetch(opts.baseUrl + path, { ...init, signal: AbortSignal.timeout(opts.hangMs) });
    const text = await res.text();
    record.status = res.status;
    answer.body = text ? JSON.parse(text) : undefined;
    record.code = answer.body?.code ?? answer.body?.status;
    const after = Number(res.headers.get('retry-after'));
    if (after > 0) answer.retryAfterMs = after * 1000;
    answer.location = res.headers.get('location') ?? undefined;
  } catch (err) {
    record.status = (err as Error).name === 'TimeoutError' ? -1 : 0;
    answer.refused = ((err as Error).cause as { code?: string } | undefined)?.code === 'ECONNREFUSED';
  }
  record.endedAt = Date.now();
  return answer;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
