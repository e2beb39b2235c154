// A vendor fault must reach the caller as the spec's 500 "retry as it is" while the caller still waits
// for its answer (RESULT_WAIT_MS from when the job was queued), not as a 503 result_pending followed by
// a 500 found only by polling. A fixed count of attempts cannot promise that for every setting (the
// defaults, 6 × VENDOR_TIMEOUT_MS 5 s + 7.75 s of back-off, take 38 s), so the attempts are fitted into
// the wait from the settings at hand: each call's time-out is VENDOR_TIMEOUT_MS or what is left of the
// wait, whichever is shorter, and after a fault the job gives up (the request answers its 500 at once)
// when another attempt, after its back-off, could not end in time with a whole time-out.
import type { Config } from '../../platform/config';

export interface VendorWait {
  /** When the answer must be stored: the caller's wait less a margin for storing it and waking the request. */
  answerBy: number;
  /** This attempt's vendor time-out, starting now. */
  attemptTimeoutMs(now: number): number;
  /** Whether a retry after `backoffMs` may be left to BullMQ; if not, the job answers its 500 now. */
  retryFits(now: number, backoffMs: number): boolean;
}

export function vendorWait(queuedAt: number, config: Pick<Config, 'RESULT_WAIT_MS' | 'VENDOR_TIMEOUT_MS'>): VendorWait {
  const waitEnds = queuedAt + config.RESULT_WAIT_MS;
  // A fifth of the wait, at most 2 s: storing the answer and waking the request take milliseconds, but a
  // busy machine may take longer to take the job up or promote a delayed one.
  const answerBy = waitEnds - Math.min(2_000, Math.floor(config.RESULT_WAIT_MS / 5));
  return {
    answerBy,
    // Once the caller has stopped waiting (it polls for the answer) there is nothing left to fit into.
    attemptTimeoutMs: (now) =>
      now < answerBy ? Math.min(config.VENDOR_TIMEOUT_MS, answerBy - now) : config.VENDOR_TIMEOUT_MS,
    retryFits: (now, backoffMs) => now >= waitEnds || now + backoffMs + config.VENDOR_TIMEOUT_MS <= answerBy,
  };
}
