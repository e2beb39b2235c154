// Password hashing (scrypt, 128 MiB and ~0.3 s of CPU each) behind one semaphore per process: a burst
// of sign-ins, honest or not, hashes a few at a time instead of exhausting memory and starving every
// other request. Excess sign-ins wait briefly for a turn, then are turned away (429 with Retry-After).
import { E_TIMEOUT, Semaphore, withTimeout } from 'async-mutex';
import { AppError } from '../../shared/platform/errors';

export class SignInBusyError extends AppError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'staff_sign_in_busy', 'Too many sign-ins at once. Wait a moment, then try again.');
  }
}

export interface HashingGate {
  run<T>(work: () => Promise<T>): Promise<T>;
}

export function createHashingGate(opts: { concurrency: number; waitMs: number }): HashingGate {
  const semaphore = withTimeout(new Semaphore(opts.concurrency), opts.waitMs);
  const retryAfterSeconds = Math.max(1, Math.ceil(opts.waitMs / 1000));
  return {
    async run(work) {
      try {
        return await semaphore.runExclusive(work);
      } catch (err) {
        if (err === E_TIMEOUT) throw new SignInBusyError(retryAfterSeconds);
        throw err;
      }
    },
  };
}
