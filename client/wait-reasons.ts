// What a run is waiting on, in words: the reason a request is being tried again (its status and code,
// or the network failure) said as what is wrong on the service's side, and when the next try is.
// The progress line shows the latest one until an answer settles a batch again.

export interface Waiting {
  /** The retry policy's reason: "503 result_pending", "429 rate_limited", "network ECONNREFUSED"… */
  reason: string;
  /** When the next attempt starts. */
  retryAt: number;
}

/** Known reasons, matched on the reason's start (status and code, or the network code). */
const EXPLAINED: [RegExp, string][] = [
  [
    /^network ECONNREFUSED/,
    'connection refused: the service is not listening at the address (stopped, or a wrong port)',
  ],
  [/^network (ENOTFOUND|EAI_AGAIN)/, 'the host name does not resolve'],
  [/^network (UND_ERR_CONNECT_TIMEOUT|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH)/, 'the host does not answer'],
  [/^network/, 'the connection failed'],
  [/^503 result_pending/, 'result_pending: the work is queued but the queue is not draining (workers stopped or busy)'],
  [/^503 queue_unavailable/, 'queue_unavailable: the service cannot reach its queue (Redis)'],
  [/^5\d\d vendor_unavailable/, 'vendor_unavailable: the payment vendor does not answer or its breaker is open'],
  [/^429/, 'rate limited (429)'],
  [/aborted due to timeout|TimeoutError/, 'no answer within --request-timeout'],
];

/** One line: what the run waits on and when it tries again. */
export function describeWaiting(w: Waiting, now = Date.now()): string {
  const reason = w.reason.slice(0, 200);
  const explained = EXPLAINED.find(([pattern]) => pattern.test(reason))?.[1] ?? reason;
  const seconds = Math.max(0, Math.ceil((w.retryAt - now) / 1000));
  return `waiting on ${explained}; ${reason.startsWith('429') ? 'limit resets' : 'next try'} in ${seconds} s`;
}
