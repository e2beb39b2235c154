// A client that behaves as the spec tells migration scripts to: a 500 or a 503 (and a dropped
// connection, whose outcome is unknown) is retried as it is, with the same Idempotency-Key, honouring
// Retry-After; a 400 is final and never retried. Every attempt is recorded with its timing.

export interface Attempt {
  startedAt: number;
  endedAt: number;
  /** HTTP status, or 0 when no response came (connection refused or reset). */
  status: number;
  code?: string;
}

export type OutcomeKind = 'acked' | 'rejected' | 'unexpected' | 'gave_up';

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
  for (let n = 0; ; n++) {
    const attempt: Attempt = { startedAt: Date.now(), endedAt: 0, status: 0 };
    attempts.push(attempt);
    let body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
    let retryAfterMs: number | undefined;
    try {
      const res = await fetch(opts.baseUrl + req.path, {
        method: 'POST',
        headers,
        body: payload,
        signal: AbortSignal.timeout(opts.hangMs),
      });
      const text = await res.text();
      attempt.status = res.status;
      body = text ? JSON.parse(text) : undefined;
      attempt.code = body?.code ?? body?.status;
      const after = Number(res.headers.get('retry-after'));
      if (after > 0) retryAfterMs = after * 1000;
    } catch (err) {
      attempt.status = (err as Error).name === 'TimeoutError' ? -1 : 0;
    }
    attempt.endedAt = Date.now();
    const { status } = attempt;
    if (status === 201 || status === 200) return { kind: 'acked', status, body, attempts };
    if (status === 400) return { kind: 'rejected', status, body, attempts };
    if (!RETRIED.has(status)) return { kind: 'unexpected', status, body, attempts };
    const backoff = retryAfterMs ?? Math.min(100 * 2 ** n, MAX_BACKOFF_MS);
    if (Date.now() + backoff > opts.deadline) return { kind: 'gave_up', status, body, attempts };
    await new Promise((resolve) => setTimeout(resolve, backoff));
  }
}
