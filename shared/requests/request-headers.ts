// The headers of queued writes, checked before anything is looked up or stored.
import { ValidationError } from '../platform/errors';
import { parseIdempotencyKey } from './idempotency-key';

/** As sent (Express's req.get), undefined when absent. */
export interface RequestHeaders {
  idempotencyKey: string | undefined;
  runId: string | undefined;
}

// The migration client's run: stored with the request so support can find a run's refusals.
const RUN_ID = /^[\x20-\x7e]{1,64}$/;

export function parseRunId(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // Bounded before the pattern runs (a header may be ~16 KB).
  if (header.length > 64 || !RUN_ID.test(header)) {
    throw ValidationError.single(
      'Data-Import-Run-Id',
      'invalid_run_id',
      'The Data-Import-Run-Id header must be 1 to 64 printable ASCII characters.',
    );
  }
  return header;
}

export function parseRequestHeaders(headers: RequestHeaders): RequestHeaders {
  return { idempotencyKey: parseIdempotencyKey(headers.idempotencyKey), runId: parseRunId(headers.runId) };
}
