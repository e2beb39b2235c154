// A job's failure is kept in Redis (failedReason and stack trace), shown on the queue board and
// logged. Messages from PostgreSQL, the vendor SDK or a parser can quote the job's input (a duplicate
// key's value, a value of the wrong type, a rejected reference), so only the error's class and code
// leave the worker: enough to tell a dropped connection from a constraint or a vendor refusal.
import { DelayedError, UnrecoverableError } from 'bullmq';

const NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/;
const CODE = /^[A-Za-z0-9_.-]{1,64}$/;

export function scrubJobError(err: unknown): unknown {
  // BullMQ's signals keep their class (BullMQ acts on it); ours carry only fixed texts.
  if (err instanceof DelayedError || err instanceof UnrecoverableError) return err;
  const e = (err ?? {}) as { name?: unknown; code?: unknown; type?: unknown };
  const name = typeof e.name === 'string' && NAME.test(e.name) ? e.name : 'Error';
  const code = [e.code, e.type].find((v): v is string => typeof v === 'string' && CODE.test(v));
  return new Error(code === undefined ? `${name} in the job` : `${name} in the job (${code})`);
}
