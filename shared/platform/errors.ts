// The closed error taxonomy. Every error a caller can see is an AppError with a stable `code`;
// api/error-middleware.ts maps them to HTTP bodies. Anything else is a 500 with an error id.

export interface FieldError {
  detail: string;
  code: string;
  attr: string;
}

export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }

  /** The JSON body callers receive. Subclasses with an endpoint-specific shape override it. */
  toBody(): object {
    return { detail: this.message, code: this.code };
  }
}

/**
 * The stable code of an error body: its `code`, or for the transactions endpoint's own 400 body its
 * `status` (TRANSACTION_IMPORT_ERROR) in lower case, which is that error's code.
 */
export function codeOfErrorBody(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const { code, status } = body as { code?: unknown; status?: unknown };
  if (typeof code === 'string') return code;
  return typeof status === 'string' && status.endsWith('_ERROR') ? status.toLowerCase() : undefined;
}

/** 400 with the standardized body `{detail, code, errors: [{detail, code, attr}]}`. */
export class ValidationError extends AppError {
  constructor(
    readonly errors: FieldError[],
    detail = 'Invalid input.',
    code = 'invalid_input',
  ) {
    super(400, code, detail);
  }

  override toBody(): object {
    return { detail: this.message, code: this.code, errors: this.errors };
  }

  static single(attr: string, code: string, detail: string): ValidationError {
    return new ValidationError([{ attr, code, detail }], detail, code);
  }
}

export class NotFoundError extends AppError {
  constructor(code: string, detail: string) {
    super(404, code, detail);
  }
}

export class AuthenticationError extends AppError {
  constructor(code: 'not_authenticated' | 'authentication_failed' | 'token_expired', detail: string) {
    super(401, code, detail);
  }
}

export class ConflictError extends AppError {
  constructor(code: string, detail: string) {
    super(422, code, detail);
  }
}

/**
 * 503 with Retry-After: retry the request as it is. A queued request's 503 names the request, and the
 * error middleware adds a `Location` to poll for its answer instead of posting again.
 */
export class UnavailableError extends AppError {
  constructor(
    code: 'result_pending' | 'queue_unavailable',
    detail: string,
    readonly retryAfterSeconds: number,
    readonly requestId?: string,
  ) {
    super(503, code, detail);
  }

  override toBody(): object {
    return this.requestId === undefined ? super.toBody() : { ...super.toBody(), request_id: this.requestId };
  }
}

/** A request that waited too long for its queued work: the work goes on; poll its Location or retry with the same key. */
export const resultPending = (retryAfterSeconds: number, requestId?: string): UnavailableError =>
  new UnavailableError(
    'result_pending',
    'The request is still being processed. Retry it as it is.',
    retryAfterSeconds,
    requestId,
  );

/** A vendor or dependency fault worth retrying (BullMQ retries the job). */
export class TransientError extends AppError {
  constructor(code: string, detail: string) {
    super(500, code, detail);
  }
}

export const accountNotFound = (): NotFoundError =>
  new NotFoundError(
    'account_not_found',
    'Account not found. Check that the account has been imported (not just staged) and that the import_supplier and external_account_number are correct.',
  );

export const supplierNotFound = (): NotFoundError =>
  new NotFoundError('import_supplier_not_found', 'Import supplier not found.');

/**
 * Load shedding: 429 when the caller's organisation holds its share of a limited resource, 503 when
 * the process (or its database pool) is full for everyone. Either way nothing was done: retry the
 * request as it is after `Retry-After` seconds.
 */
export class OverloadError extends AppError {
  constructor(
    status: 429 | 503,
    code:
      | 'too_many_concurrent_requests'
      | 'server_busy'
      | 'database_busy'
      | 'too_many_scheduled_creations'
      | 'too_many_concurrent_creations',
    detail: string,
    readonly retryAfterSeconds: number,
  ) {
    super(status, code, detail);
  }
}

/**
 * 503 with Retry-After: the database refused or dropped the connection (too many connections, a
 * restarting server or pooler, no pooled connection in time). `database_unavailable`: retry the
 * request as it is (a write with its Idempotency-Key, so a write that did get stored is replayed, not
 * repeated). `write_outcome_unknown`: the connection was lost while the write was committing, so it may
 * or may not be stored; resending it as it is answers exactly once either way.
 */
export class DatabaseUnavailableError extends AppError {
  constructor(
    code: 'database_unavailable' | 'write_outcome_unknown',
    readonly retryAfterSeconds: number,
  ) {
    super(
      503,
      code,
      code === 'database_unavailable'
        ? 'The database is not accepting connections right now. Retry the request as it is after Retry-After (a write with the same Idempotency-Key).'
        : 'The connection to the database was lost while the write was being committed: it may or may not be stored. Resend the request as it is (with the same Idempotency-Key) after Retry-After: a stored write is answered again, not repeated.',
    );
  }
}

/** Thrown by a transaction whose COMMIT failed on a lost connection: whether it committed is unknown. */
export class CommitOutcomeUnknown extends Error {
  constructor(cause: unknown) {
    super('the connection was lost during COMMIT: the transaction may or may not have committed', { cause });
    this.name = 'CommitOutcomeUnknown';
  }
}
