// The Idempotency-Key header of queued writes (Stripe's contract: same key + same body replays the
// stored answer for 24 h; the key is 1 to 255 printable ASCII characters).
import { ValidationError } from '../platform/errors';

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;

export function parseIdempotencyKey(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  // Bounded before the pattern runs (a header may be ~16 KB).
  if (header.length > 255 || !IDEMPOTENCY_KEY.test(header)) {
    throw ValidationError.single(
      'Idempotency-Key',
      'invalid_idempotency_key',
      'The Idempotency-Key header must be 1 to 255 printable ASCII characters.',
    );
  }
  return header;
}
