// Per-request plumbing: a request id (always ours, echoed back, carried into jobs), one JSON log line
// per request, and the HTTP metrics.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
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
    assignRequestId(req, res);
    next();
  };
}

/** Gives the request its id (echoed as X-Request-Id) and keeps the client's own for the log line. */
export function assignRequestId(req: Request, res: Response): void {
  req.requestId = randomUUID();
  req.clientRequestId = clientRequestId(req.get('x-request-id'));
  res.setHeader('X-Request-Id', req.requestId);
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
  const access = accessLogger(logger);
  return (req, res, next) => {
    const started = performance.now();
    res.once('close', () => logAccess(access, req, res, started));
    next();
  };
}

/**
 * The logger of the request lines. The line holds only the fields above, none of them a redacted path:
 * the logger's redaction (kept for every other line) would find nothing here, yet cost ~7 µs a line,
 * two thirds of writing it.
 */
export function accessLogger(logger: Logger): Logger {
  return logger.child({}, { redact: { paths: [] } });
}

/** Writes the request's line, once its response is done or abandoned (`started`: performance.now()). */
export function logAccess(access: Logger, req: Request, res: Response, started: number): void {
  const aborted = !res.writableFinished;
  const status = res.statusCode;
  const line = {
    req: {
      id: req.requestId,
      client_request_id: req.clientRequestId,
      method: req.method,
      path: pathOf(req.originalUrl),
    },
    organisation: req.caller?.organisationId,
    runId: req.runId,
    supplier: req.importSupplier,
    res: { status, errorCode: res.locals.errorCode as string | undefined, fieldCodes: loggedFieldCodes(res) },
    responseTime: Math.round(performance.now() - started),
  };
  if (aborted || status >= 500) access.error(line, aborted ? 'request aborted' : `${req.method} ${status}`);
  else access.info(line, `${req.method} ${status}`);
}

/** A URL's path, without its query. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
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
  const labels = new RequestLabels();
  return (req, res, next) => {
    const started = performance.now();
    res.on('finish', () => {
      countRequest({ metrics, suppliers, labels }, req, res, routeOf(pathOf(req.originalUrl)), started);
    });
    next();
  };
}

type RequestLabelSet = Readonly<Record<'method' | 'route' | 'status', string>>;

/** The label sets of http_requests_total and its histogram, one object per method, route and status. */
export class RequestLabels {
  private readonly sets = new Map<string, Map<number, RequestLabelSet>>();

  of(method: string, route: string, status: number): RequestLabelSet {
    // Bounded: methods are Node's known ones, routes the app's templates, statuses three digits.
    const key = method === 'POST' ? route : `${method} ${route}`;
    let byStatus = this.sets.get(key);
    if (!byStatus) {
      byStatus = new Map<number, RequestLabelSet>();
      this.sets.set(key, byStatus);
    }
    let set = byStatus.get(status);
    if (!set) {
      set = Object.freeze({ method, route, status: String(status) });
      byStatus.set(status, set);
    }
    return set;
  }
}

export interface RequestCounting {
  metrics: Metrics;
  suppliers?: SupplierLabels;
  labels: RequestLabels;
}

/** Counts a finished request under its route label (`started`: performance.now() when it came in). */
export function countRequest(counting: RequestCounting, req: Request, res: Response, route: string, started: number) {
  const { metrics, suppliers } = counting;
  const labels = counting.labels.of(req.method, route, res.statusCode);
  metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
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
}
