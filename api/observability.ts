// Per-request plumbing: a request id (accepted from X-Request-Id or generated, echoed back, carried
// into jobs), one JSON log line per request, and the HTTP metrics.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '../shared/platform/logger';
import type { Metrics } from '../shared/platform/metrics';
import { runWithRequestId } from '../shared/platform/request-context';

const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
  }
}

export function requestId(): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const id = given && ACCEPTABLE_REQUEST_ID.test(given) ? given : randomUUID();
    req.requestId = id;
    res.set('X-Request-Id', id);
    runWithRequestId(id, next);
  };
}

/** The route template (`/v1/data-import/account-transfer-status/:supplier/:externalAccountNumber/`), never raw ids. */
function routeLabel(req: Request): string {
  const route = (req.route as { path?: string } | undefined)?.path;
  return route ? `${req.baseUrl}${route}` : 'unmatched';
}

export function requestLogger(logger: Logger): RequestHandler {
  // Only method, path, status and timing are logged: no headers (tokens), no bodies (note text).
  return pinoHttp({
    logger,
    genReqId: (req) => (req as Request).requestId ?? randomUUID(),
    serializers: {
      req: (req: { id: string; method: string; url: string }) => ({
        id: req.id,
        method: req.method,
        path: req.url.split('?')[0],
      }),
      res: (res: { statusCode: number }) => ({ status: res.statusCode }),
    },
    customSuccessMessage: (req, res) => `${req.method} ${res.statusCode}`,
    customErrorMessage: (req, res) => `${req.method} ${res.statusCode}`,
    customLogLevel: (_req, res, err) => (err || res.statusCode >= 500 ? 'error' : 'info'),
    customProps: (req) => ({ organisation: (req as Request).caller?.organisationId }),
  });
}

export function httpMetrics(metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const end = metrics.httpDuration.startTimer();
    res.on('finish', () => {
      const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
      end(labels);
      metrics.httpRequests.inc(labels);
    });
    next();
  };
}
