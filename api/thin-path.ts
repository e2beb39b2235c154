// The write endpoints' thin path. A declared endpoint that takes it (`takesThinPath`, every POST of the
// data-import API) is looked up once, by method and exact path, and run through what its request
// needs, in the order the routers would run it: the security headers (helmet's, computed once), the
// request id, the log line and metrics (one listener), its mount's middleware (JSON check,
// authentication, organisation rate limit, body parsing, run id), its declaration's steps and its
// handler. Anything else (another method, a path written differently: no trailing slash, other case)
// goes on through the routers as before, so no request is answered differently.
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response, Router } from 'express';
import express from 'express';
import helmet from 'helmet';
import type { Logger } from '../shared/platform/logger';
import type { Metrics } from '../shared/platform/metrics';
import type { EndpointDeclaration } from '../shared/requests/endpoint-declaration';
import { MOUNTS, routeOf, type Mount } from './endpoint-path';
import {
  accessLogger,
  assignRequestId,
  countRequest,
  logAccess,
  noteRefusal,
  pathOf,
  RequestLabels,
} from './observability';
import type { SupplierLabels } from './refusal-labels';
import { noteAnswerBody } from './run-ledger';

/** One mount's endpoints on the thin path: its middleware, each endpoint's steps, the routers with the handlers. */
export interface ThinMount {
  mount: Mount;
  front: RequestHandler[];
  steps: Map<EndpointDeclaration, RequestHandler[]>;
  routers: Router[];
}

export interface ThinPathDeps {
  mounts: ThinMount[];
  stopping?: () => boolean;
  logger: Logger;
  metrics: Metrics;
  suppliers?: SupplierLabels;
  /** The route label the routers' requests get (api/route-labels.ts). */
  labeller: (path: string) => string;
  errors: ErrorRequestHandler;
}

interface RouteLayer {
  route?: { path: unknown; methods: Record<string, boolean | undefined> };
  match(path: string): false | { params: Record<string, string> };
  handleRequest(req: Request, res: Response, next: NextFunction): void;
}

interface ThinEndpoint {
  /** Matches its path when it has parameters (not decoded here: its layer decodes them, as the routers do). */
  pattern?: RegExp;
  label?: string;
  chain: RequestHandler[];
}

const expressJson = express.response.json;

/** Longer paths are left to the routers without a pattern run over them. */
const MAX_PATH = 512;

/** res.json of a thin-path answer: notes a refusal's code and the body for the ledger, as the wrappers did. */
function noteAndSend(this: Response, body: unknown): Response {
  if (this.statusCode >= 400) noteRefusal(this, body);
  noteAnswerBody(this, body);
  return sendJson(this, body);
}

/**
 * What Express's res.json sends for a POST's JSON answer (the app sets no JSON replacer, spacing or
 * escaping, and no ETag), without its settings and header look-ups; anything else is left to Express.
 */
function sendJson(res: Response, body: unknown): Response {
  const status = res.statusCode;
  const plain =
    body !== undefined &&
    status !== 204 &&
    status !== 205 &&
    status !== 304 &&
    !res.hasHeader('Content-Type') &&
    !res.hasHeader('Transfer-Encoding');
  if (!plain) return expressJson.call(res, body);
  const text = JSON.stringify(body);
  if (text === undefined) return expressJson.call(res, body);
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  res.end(text, 'utf8');
  return res;
}

/** Helmet's headers, in its order, as it sets them on every answer (read once from helmet itself). */
function securityHeaders(): [string, string][] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: unknown) => headers.push([name, String(value)]),
    removeHeader: () => undefined,
  };
  helmet()({} as Request, recorder as unknown as Response, () => undefined);
  return headers;
}

function handlerLayer(routers: Router[], declaration: EndpointDeclaration): RouteLayer {
  const path = routeOf(declaration);
  for (const router of routers) {
    for (const layer of router.stack as unknown as RouteLayer[]) {
      if (layer.route?.path === path && layer.route.methods[declaration.method]) return layer;
    }
  }
  throw new Error(`${declaration.operationId}: no handler registered at ${path}`);
}

function patternOf(path: string): RegExp | undefined {
  if (!path.includes('{')) return undefined;
  const source = path
    .split(/(\{[A-Za-z0-9_]+\})/)
    .map((part) => (part.startsWith('{') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`);
}

function compile(mount: ThinMount, declaration: EndpointDeclaration, steps: RequestHandler[]): ThinEndpoint {
  const layer = handlerLayer(mount.routers, declaration);
  const pattern = patternOf(declaration.path);
  const mountLength = MOUNTS[mount.mount].length;
  const handler: RequestHandler = pattern
    ? (req, res, next) => {
        // As the routers do: the layer decodes the parameters (a bad %-sequence is a 400).
        const match = layer.match(pathOf(req.url).slice(mountLength));
        if (!match) return next(new Error(`${declaration.operationId}: its route did not match`));
        req.params = match.params;
        layer.handleRequest(req, res, next);
      }
    : (req, res, next) => {
        req.params = {};
        layer.handleRequest(req, res, next);
      };
  const paramSteps: RequestHandler[] = pattern ? [matchParameters(layer, mountLength)] : [];
  return { pattern, chain: [...mount.front, ...paramSteps, ...steps, handler] };
}

/** The routers decode a route's parameters before its steps run: a bad %-sequence is refused there. */
function matchParameters(layer: RouteLayer, mountLength: number): RequestHandler {
  return (req, _res, next) => {
    layer.match(pathOf(req.url).slice(mountLength));
    next();
  };
}

/** Runs `chain` as Express would: a throw or a rejected promise goes to `errors`, next(err) too. */
function run(chain: RequestHandler[], errors: ErrorRequestHandler, req: Request, res: Response): void {
  let index = 0;
  const fail = (err: unknown) => {
    try {
      errors(err, req, res, () => undefined);
    } catch (thrown) {
      res.destroy(thrown as Error);
    }
  };
  const next: NextFunction = (err?: unknown) => {
    if (err !== undefined && err !== null && err !== 'route' && err !== 'router') return fail(err);
    const step = chain[index++];
    if (!step) return;
    try {
      const returned = step(req, res, next);
      if (returned instanceof Promise)
        returned.then(undefined, (e: unknown) => fail(e ?? new Error('Rejected promise')));
    } catch (thrown) {
      fail(thrown);
    }
  };
  next();
}

/** The thin path, mounted first on the app; a request it does not take goes on to the routers. */
export function thinPath(deps: ThinPathDeps): RequestHandler {
  const exact = new Map<string, ThinEndpoint>();
  const withParameters: (ThinEndpoint & { pattern: RegExp })[] = [];
  for (const mount of deps.mounts) {
    for (const [declaration, steps] of mount.steps) {
      const endpoint = compile(mount, declaration, steps);
      if (endpoint.pattern) withParameters.push({ ...endpoint, pattern: endpoint.pattern });
      else exact.set(declaration.path, endpoint);
    }
  }
  const headers = securityHeaders();
  const access = accessLogger(deps.logger);
  const counting = { metrics: deps.metrics, suppliers: deps.suppliers, labels: new RequestLabels() };
  const labelOf = (endpoint: ThinEndpoint, path: string) =>
    endpoint.pattern ? deps.labeller(path) : (endpoint.label ??= deps.labeller(path));

  return (req, res, next) => {
    if (req.method !== 'POST') return next();
    const path = pathOf(req.url);
    // A path longer than any declared one is the routers' (no pattern runs over it here).
    if (path.length > MAX_PATH) return next();
    const endpoint = exact.get(path) ?? withParameters.find((e) => e.pattern.test(path));
    if (!endpoint) return next();
    const started = performance.now();
    // Keep-alive clients would otherwise go on sending on their open sockets (see api/server.ts).
    if (deps.stopping?.()) res.shouldKeepAlive = false;
    for (const [name, value] of headers) res.setHeader(name, value);
    assignRequestId(req, res);
    res.json = noteAndSend;
    res.once('close', () => {
      if (res.writableFinished) countRequest(counting, req, res, labelOf(endpoint, path), started);
      logAccess(access, req, res, started);
    });
    run(endpoint.chain, deps.errors, req, res);
  };
}
