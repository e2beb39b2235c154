// Per-request plumbing: a request id (always ours, echoed back, carried into jobs), one JSON log line
// per request, and the HTTP metrics.
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';
import { codeOfErrorBody } from '../shared/platform/errors';
import type { Logger } from '../shared/platform/logger';
import type { Metrics } from '../shared/platform/metrics';
import { codeLabel, type SupplierLabels } from './refusal-labels';

/** Longest client-chosen X-Request-Id kept for the log line; the rest is cut. */
const CLIENT_REQUEST_ID_MAX_LENGTH = 128;
// C0 and C1 controls, DEL, and the line and paragraph separators: nothing that could fake a line break
// or move a terminal's cursor when the log is read.
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
    /** The client's own X-Request-Id, bounded and made printable, for the log line only. */
    clientRequestId?: string;
  }
}

/**
 * The request's id is generated here, never taken from the client: a client-chosen one would let one
 * tenant write log lines (and job lines) under an id another tenant uses. The client's own
 * X-Request-Id is kept apart, as `client_request_id`, so a migration script can still find its lines.
 */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    req.requestId = randomUUID();
    req.clientRequestId = clientRequestId(req.get('x-request-id'));
    res.set('X-Request-Id', req.requestId);
    next();
  };
}

function clientRequestId(given: string | undefined): string | undefined {
  if (given === undefined) return undefined;
  // Cut before the pattern runs, and cut again after: what is left is at most the bound.
  const printable = given.slice(0, CLIENT_REQUEST_ID_MAX_LENGTH * 2).replace(UNPRINTABLE, '');
  return printable.slice(0, CLIENT_REQUEST_ID_MAX_LENGTH) || undefined;
}

/** Field errors of one refusal read for the log line and the metric, at most (the rest are not counted). */
const MAX_FIELD_ERRORS_READ = 1000;
/** Distinct field-level codes a log line lists. */
const MAX_FIELD_CODES_LOGGED = 5;

/**
 * Notes a refusal's code and its field errors' codes (`errors[].code`, so a transactions 400 reads
 * `product_code_does_not_exist`, not only `transaction_import_error`), for the log line and the metrics.
 */
export function noteRefusal(res: Response, body: unknown): void {
  res.locals.errorCode = codeOfErrorBody(body);
  const errors = (body as { errors?: unknown } | null)?.errors;
  if (!Array.isArray(errors)) return;
  const counts = new Map<string, number>();
  for (const e of errors.slice(0, MAX_FIELD_ERRORS_READ)) {
    const code = (e as { code?: unknown } | null)?.code;
    if (typeof code === 'string') counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  if (counts.size > 0) res.locals.fieldCodes = counts;
}

/**
 * Notes the error code of every refusal (status 400 and above) as its body is sent, for the request's
 * log line and the refusals metric: the error middleware's bodies and queued requests' stored answers alike.
 */
export function errorCodeOfResponse(): RequestHandler {
  return (_req, res, next) => {
    const json = res.json.bind(res);
    res.json = (body: unknown) => {
      if (res.statusCode >= 400) noteRefusal(res, body);
      return json(body);
    };
    next();
  };
}

/**
 * One line per request when its response is done (or abandoned): method, path, status, time and the
 * calling organisation; no headers (tokens), no bodies (note text). Written straight to the logger:
 * pino-http's per-request child logger and serializers cost ~12 % of the API's CPU on a status lookup.
 */
export function requestLogger(logger: Logger): RequestHandler {
  // The line holds only the fields above, none of them a redacted path: the logger's redaction (kept for
  // every other line) would find nothing here, yet cost ~7 µs a line, two thirds of writing it.
  const access = logger.child({}, { redact: { paths: [] } });
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => {
      const aborted = !res.writableFinished;
      const status = res.statusCode;
      const line = {
        req: {
          id: req.requestId,
          client_request_id: req.clientRequestId,
          method: req.method,
          path: req.originalUrl.split('?')[0],
        },
        organisation: req.caller?.organisationId,
        runId: req.runId,
        supplier: req.importSupplier,
        res: { status, errorCode: res.locals.errorCode as string | undefined, fieldCodes: loggedFieldCodes(res) },
        responseTime: Math.round(performance.now() - started),
      };
      if (aborted || status >= 500) access.error(line, aborted ? 'request aborted' : `${req.method} ${status}`);
      else access.info(line, `${req.method} ${status}`);
    });
    next();
  };
}

function loggedFieldCodes(res: Response): string[] | undefined {
  const counts = res.locals.fieldCodes as Map<string, number> | undefined;
  return counts && [...counts.keys()].slice(0, MAX_FIELD_CODES_LOGGED).map((c) => c.slice(0, 64));
}

/**
 * Requests, latency and refusals by route template (`routeOf`: one label for an endpoint's successes and
 * refusals, api/route-labels.ts), refusals also by code and supplier, with bounded labels only
 * (api/refusal-labels.ts).
 */
export function httpMetrics(
  metrics: Metrics,
  routeOf: (path: string) => string,
  suppliers?: SupplierLabels,
): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const route = routeOf(req.originalUrl.split('?')[0]!);
      const labels = { method: req.method, route, status: String(res.statusCode) };
      end(labels);
      metrics.httpRequests.inc(labels);
      const code = res.locals.errorCode as string | undefined;
      if (code === undefined) return;
      const fieldCodes = res.locals.fieldCodes as Map<string, number> | undefined;
      const label = suppliers?.label(req.importSupplier, req.caller?.organisationId);
      void (label ?? Promise.resolve('none')).then((supplier) => {
        metrics.httpRefusals.inc({ route, code: codeLabel(code), supplier });
        for (const [field, n] of fieldCodes ?? []) {
          metrics.httpRefusedFields.inc({ route, code: codeLabel(field), supplier }, n);
        }
      });
    });
    next();
  };
}
