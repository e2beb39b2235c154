// The headers of queued writes, checked before anything is looked up or stored. Each is printable
// ASCII of a bounded length, checked before the pattern runs (a header may be ~16 KB).
import { ValidationError } from '../platform/errors';

/** As sent (Express's req.get), undefined when absent. */
export interface RequestHeaders {
  idempotencyKey: string | undefined;
  runId: string | undefined;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

function printableHeader(name: string, maxLength: number, code: string) {
  return (header: string | undefined): string | undefined => {
    if (header === undefined) return undefined;
    if (header.length === 0 || header.length > maxLength || !PRINTABLE_ASCII.test(header)) {
      throw ValidationError.single(
        name,
        code,
        `The ${name} header must be 1 to ${maxLength} printable ASCII characters.`,
      );
    }
    return header;
  };
}

/** Stripe's contract: the same key with the same body replays the stored answer for 24 h. */
export const parseIdempotencyKey = printableHeader('Idempotency-Key', 255, 'invalid_idempotency_key');

/** The migration client's run: stored with the request so support can find a run's refusals. */
export const parseRunId = printableHeader('Data-Import-Run-Id', 64, 'invalid_run_id');

export function parseRequestHeaders(headers: RequestHeaders): RequestHeaders {
  return { idempotencyKey: parseIdempotencyKey(headers.idempotencyKey), runId: parseRunId(headers.runId) };
}
