// The one place errors become HTTP answers. Routes never catch: they throw AppErrors (or let
// unexpected errors fly) and this middleware writes the spec's bodies.
import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, RequestHandler, Response } from 'express';
import { isPoolAcquireTimeout } from '../shared/platform/db';
import { isDatabaseUnavailable } from '../shared/platform/pg-errors';
import {
  AppError,
  AuthenticationError,
  CommitOutcomeUnknown,
  DatabaseUnavailableError,
  OverloadError,
  UnavailableError,
} from '../shared/platform/errors';
import { requestLocation } from '../shared/requests/request-answer.endpoint';
import type { Logger } from '../shared/platform/logger';
import { noteRefusal } from './observability';
import { noteAnswerBody } from './run-ledger';

interface HttpParserError {
  type?: string;
  status?: number;
}

export function notFoundHandler(): RequestHandler {
  return (req, res) => {
    res.status(404).json({ detail: `No route for ${req.method} ${req.path}.`, code: 'route_not_found' });
  };
}

export function errorMiddleware(logger: Logger, retryAfterSeconds: number): ErrorRequestHandler {
  return (thrown: unknown, req, res, _next) => {
    const err = asBackPressure(thrown, retryAfterSeconds);
    if (err !== thrown && err instanceof AppError)
      logger.warn({ err: thrown, path: req.path, code: err.code }, 'database refused or dropped the connection');
    if (res.headersSent) {
      // A streamed body failed half-way: the only honest signal left is to cut the connection.
      logger.error({ err, path: req.path }, 'error after response started');
      res.destroy();
      return;
    }
    if (err instanceof UnavailableError || err instanceof OverloadError || err instanceof DatabaseUnavailableError)
      res.set('Retry-After', String(err.retryAfterSeconds));
    if (err instanceof UnavailableError && err.requestId !== undefined)
      res.set('Location', requestLocation(err.requestId));
    if (err instanceof AuthenticationError) {
      // RFC 9110 §15.5.2: a 401 names the scheme that would be accepted.
      res.set('WWW-Authenticate', 'Token');
    }
    if (err instanceof AppError) {
      sendBody(res, err.status, err.toBody(), { logger, err, path: req.path });
      return;
    }
    const parserError = err as HttpParserError;
    if (parserError.type === 'entity.parse.failed') {
      res.status(400).json({ detail: 'The request body is not valid JSON.', code: 'parse_error', errors: [] });
      return;
    }
    // Express decodes path parameters itself and throws this for %-sequences that are not UTF-8.
    if (err instanceof URIError && parserError.status === 400) {
      res
        .status(400)
        .json({ detail: 'The URL path is not valid percent-encoded UTF-8.', code: 'parse_error', errors: [] });
      return;
    }
    if (parserError.type === 'entity.too.large') {
      res.status(413).json({ detail: 'The request body is too large.', code: 'request_too_large' });
      return;
    }
    if (parserError.type === 'encoding.unsupported' || parserError.type === 'charset.unsupported') {
      res.status(415).json({ detail: 'Unsupported body encoding or charset.', code: 'unsupported_media_type' });
      return;
    }
    const errorId = randomUUID();
    logger.error({ err, errorId, path: req.path }, 'unexpected error');
    res.status(500).json({ detail: 'An unexpected error occurred.', code: 'server_error', error_id: errorId });
  };
}

/**
 * Database pressure as back-pressure, never a 500: a pool with every connection busy for the whole
 * acquire time-out sheds the request (503 database_busy); a refused or dropped connection (too many
 * connections, a restarting server or pooler) is 503 database_unavailable; a COMMIT cut off on a lost
 * connection is 503 write_outcome_unknown. Each with Retry-After; anything else passes unchanged.
 */
export function asBackPressure(thrown: unknown, retryAfterSeconds: number): unknown {
  if (thrown instanceof AppError) return thrown;
  if (isPoolAcquireTimeout(thrown))
    return new OverloadError(
      503,
      'database_busy',
      'The database is busy. Retry the request as it is after Retry-After.',
      retryAfterSeconds,
    );
  if (hasCommitOutcomeUnknown(thrown)) return new DatabaseUnavailableError('write_outcome_unknown', retryAfterSeconds);
  if (isDatabaseUnavailable(thrown)) return new DatabaseUnavailableError('database_unavailable', retryAfterSeconds);
  return thrown;
}

function hasCommitOutcomeUnknown(err: unknown): boolean {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof CommitOutcomeUnknown) return true;
    current = current.cause;
  }
  return false;
}

/**
 * Writes an error's body, whatever it holds: a value JSON.stringify cannot write (too deep, cyclic, a
 * BigInt) must not become Express's own HTML page. The fallback is the 500 body, logged at error level.
 */
function sendBody(
  res: Response,
  status: number,
  body: unknown,
  context: { logger: Logger; err: unknown; path: string },
) {
  let text: string;
  try {
    text = JSON.stringify(body);
  } catch (serialisation) {
    const errorId = randomUUID();
    context.logger.error(
      { err: context.err, serialisation, errorId, path: context.path },
      'error body could not be serialised',
    );
    res.status(500).json({ detail: 'An unexpected error occurred.', code: 'server_error', error_id: errorId });
    return;
  }
  // As res.json would have recorded it (api/observability.ts): this body is sent as text.
  noteRefusal(res, body);
  noteAnswerBody(res, body);
  res.status(status).type('application/json').send(text);
}

/** POST bodies must be JSON: anything else is refused before it reaches a route. */
export function requireJsonBody(): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'POST' && !req.is('application/json')) {
      res
        .status(415)
        .json({ detail: 'Request bodies must be sent as application/json.', code: 'unsupported_media_type' });
      return;
    }
    next();
  };
}
