// The HTTP facade: createApp wires routes to their dependencies; startApi/stop own the listener.
import express, { type Express, type RequestHandler } from 'express';
import helmet from 'helmet';
import { createServer, type Server } from 'node:http';
import { createTokenSigner } from '../shared/auth/access-token';
import { loadRevocations } from '../shared/auth/revocation.use-cases';
import type { Config } from '../shared/platform/config';
import { QUEUED_REQUEST_JOBS, REQUEST_QUEUES } from '../shared/catalog/jobs';
import { createJobQueues } from '../shared/platform/queues';
import { processMetrics } from '../shared/platform/metrics';
import { createRedis, untilReady } from '../shared/platform/redis';
import { createQueuedRequests } from '../shared/requests/queued-request';
import type { AppDeps } from './app-deps';
import { authenticate } from './auth/authenticate';
import { revocationCheck } from './auth/revocation-check';
import { cachingVerifier } from './auth/verified-token-cache';
import { errorMiddleware, notFoundHandler, requireJsonBody } from './error-middleware';
import { parseJsonBody } from './json-body';
import { declaredEndpoints } from './endpoint-routes';
import { errorCodeOfResponse, httpMetrics, requestId, requestLogger } from './observability';
import { organisationRateLimit, tokenRateLimit } from './rate-limits';
import { docsRoutes } from './routes/docs.routes';
import { healthRoutes } from './routes/health.routes';
import { staffRoutes } from './staff';
import { createStaffApp } from './staff-server';
import { accountImportRoutes, accountImportV2Routes } from './routes/account-import.routes';
import { accountRoutes } from './routes/accounts.routes';
import { graphqlHandler } from './routes/graphql.routes';
import { noteRoutes } from './routes/notes.routes';
import { paymentInstructionRoutes } from './routes/payment-instructions.routes';
import { reconciliationRoutes } from './routes/reconciliation.routes';
import { requestRoutes } from './routes/requests.routes';
import { statementRoutes } from './routes/statements.routes';
import { transactionRoutes } from './routes/transactions.routes';
import { runRoutes } from './routes/runs.routes';
import { runDeclarationRoutes } from './routes/run-declaration.routes';
import { runContext } from './run-ledger';
import { supplierLabels } from './refusal-labels';
import { routeLabeller } from './route-labels';
import { createStreamSlots, type StreamSlots } from './streaming';
import { thinPath, type ThinMount } from './thin-path';

export function createApp(deps: AppDeps): Express {
  const { config, db, logger, redis } = deps;
  const streams = deps.streams ?? createStreamSlots(config);
  const signer = deps.signer ?? createTokenSigner(config.TOKEN_SECRET, config.TOKEN_TTL_SECONDS);
  const verifier = cachingVerifier(signer, {
    maxEntries: config.TOKEN_CACHE_SIZE,
    ttlMs: config.TOKEN_CACHE_SECONDS * 1000,
  });
  const refuseRevoked = revocationCheck({
    load: () => loadRevocations(db, new Date()),
    refreshMs: config.TOKEN_REVOCATION_REFRESH_MS,
  });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.TRUST_PROXY !== undefined) app.set('trust proxy', config.TRUST_PROXY);
  const errors = errorMiddleware(logger, config.LOAD_SHED_RETRY_AFTER_SECONDS);
  const suppliers = supplierLabels(db, logger);
  const labeller = routeLabeller(() => app);
  const authenticated = authenticate(verifier, refuseRevoked);
  const dataImport = dataImportRoutes({ ...deps, streams }, authenticated);
  const v2 = v2Routes({ ...deps, streams }, authenticated);
  // The write endpoints: looked up once, run through their own steps only (api/thin-path.ts).
  const { stopping, metrics } = deps;
  app.use(thinPath({ mounts: [dataImport.thin, v2.thin], stopping, logger, metrics, suppliers, labeller, errors }));
  // Keep-alive clients would otherwise go on sending on their open sockets, so a stopping server
  // never drains and its force-close cuts whatever is in flight.
  app.use((_req, res, next) => {
    if (stopping?.()) res.shouldKeepAlive = false;
    next();
  });
  app.use(helmet());
  app.use(requestId());
  app.use(errorCodeOfResponse());
  app.use(requestLogger(logger));
  app.use(httpMetrics(metrics, labeller, suppliers));
  app.use(healthRoutes(deps));
  // Public documentation: mounted before /v1, whose routers authenticate.
  app.use(docsRoutes(config));
  // Staff pages read only their session cookie; the data-import API below reads only Authorization.
  // With STAFF_PORT they are served by their own listener instead (api/staff-server.ts).
  if (config.STAFF_PORT === undefined) app.use(staffRoutes({ ...deps, streams }));

  const v1 = express.Router();
  v1.use(requireJsonBody());
  // Unknown JSON is parsed into plain objects; `__proto__` keys stay data (JSON.parse never assigns prototypes).
  // Bodies are parsed only once the caller is known to be allowed: obtainToken, which cannot
  // authenticate first, after its rate limit and with a limit of its own far below the API's.
  const parseJson = (limit: number) => express.json({ limit, strict: false });
  v1.post(
    '/graphql/',
    tokenRateLimit(redis, config),
    parseJson(config.GRAPHQL_BODY_LIMIT_BYTES),
    graphqlHandler(
      { db, signer, refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS, now: deps.now },
      config.LOAD_SHED_RETRY_AFTER_SECONDS,
    ),
  );

  v1.use('/data-import', dataImport.router);
  app.use('/v1', v1);

  app.use('/v2', v2.router);

  app.use(notFoundHandler());
  app.use(errors);
  return app;
}

/** A mount's router, and what the thin path takes of it (the same middleware and step instances). */
interface MountedRoutes {
  router: express.Router;
  thin: ThinMount;
}

/**
 * The middleware every data-import request runs before its endpoint's steps: authenticated, limited
 * per organisation, parsed, its run id read. One list per mount, shared by its router and the thin path.
 */
function dataImportFront(deps: AppDeps, authenticated: RequestHandler): RequestHandler[] {
  return [
    authenticated,
    organisationRateLimit(deps.redis, deps.config),
    ...parseJsonBody(deps.config.BODY_LIMIT_BYTES),
    runContext(),
  ];
}

/** The v1 data-import API: authenticated, limited per organisation, parsed, recorded in the run ledger. */
function dataImportRoutes(deps: AppDeps & { streams: StreamSlots }, authenticated: RequestHandler): MountedRoutes {
  const { db, logger, config, streams } = deps;
  const dataImport = express.Router();
  const front = dataImportFront(deps, authenticated);
  dataImport.use(...front);
  // Each declared endpoint's steps (run ledger, queued-write cap, stream slot, query check), then its handler.
  const declared = declaredEndpoints('v1', { ledger: deps, config, streams });
  dataImport.use(declared.router);
  const routers = [
    accountRoutes({ db, logger, config, streams }),
    accountImportRoutes(deps),
    reconciliationRoutes({ db, logger, config, streams }),
    noteRoutes(deps),
    statementRoutes(deps),
    transactionRoutes(deps),
    paymentInstructionRoutes(deps),
    requestRoutes(deps),
    runRoutes(deps),
    runDeclarationRoutes(deps),
  ];
  for (const router of routers) dataImport.use(router);
  // v1's JSON check sits on the /v1 router (it covers graphql too); the thin path runs its own first.
  const thin = { mount: 'v1' as const, front: [requireJsonBody(), ...front], steps: declared.thinSteps, routers };
  return { router: dataImport, thin };
}

/** The published contract's v2 account endpoints: authenticated, limited and parsed as v1's data-import. */
function v2Routes(deps: AppDeps & { streams: StreamSlots }, authenticated: RequestHandler): MountedRoutes {
  const v2 = express.Router();
  const jsonOnly = requireJsonBody();
  v2.use(jsonOnly);
  const dataImportV2 = express.Router();
  const front = dataImportFront(deps, authenticated);
  dataImportV2.use(...front);
  const declared = declaredEndpoints('v2', { ledger: deps, config: deps.config, streams: deps.streams });
  dataImportV2.use(declared.router);
  const routers = [accountImportV2Routes(deps)];
  for (const router of routers) dataImportV2.use(router);
  v2.use('/data-import', dataImportV2);
  return { router: v2, thin: { mount: 'v2', front: [jsonOnly, ...front], steps: declared.thinSteps, routers } };
}

export interface RunningApi {
  server: Server;
  port: number;
  /** The staff pages' own listener, when STAFF_PORT is set. */
  staff?: { server: Server; port: number };
  stop(): Promise<void>;
}

/**
 * A listener with time-outs fit for this API instead of Node's (a minute for headers, five for a
 * request): a socket that trickles its headers is answered 408 and closed, and one listener holds at
 * most HTTP_MAX_CONNECTIONS sockets. Node checks the time-outs only every connectionsCheckingInterval
 * (30 s by default), so that is kept a fraction of the headers time-out.
 */
function listen(app: Express, config: Config, port: number, host: string): Promise<{ server: Server; port: number }> {
  const server = createServer(
    {
      headersTimeout: config.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeout: config.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeout: config.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      connectionsCheckingInterval: Math.min(1_000, Math.ceil(config.HTTP_HEADERS_TIMEOUT_MS / 4)),
    },
    app,
  );
  server.maxConnections = config.HTTP_MAX_CONNECTIONS;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
  });
}

export type ApiOptions = Pick<AppDeps, 'config' | 'db' | 'logger'> & Partial<Omit<AppDeps, 'queued'>>;

/** Starts the listener; creates the Redis connection, queues and metrics it is not given (and closes only those). */
export async function startApi(deps: ApiOptions): Promise<RunningApi> {
  const queues = deps.queues ?? createJobQueues(deps.config, REQUEST_QUEUES);
  const redis = deps.redis ?? createRedis(deps.config, 'producer');
  await untilReady(redis);
  const metrics = deps.metrics ?? processMetrics();
  const queued = createQueuedRequests({
    db: deps.db,
    queues,
    jobs: QUEUED_REQUEST_JOBS,
    waitMs: deps.config.RESULT_WAIT_MS,
    backoff: deps.jobBackoff,
    direct: deps.config.DIRECT_COMMIT === 'on',
  });
  // One set of stream slots for both listeners: lists and staff CSV downloads hold the same pool.
  const streams = deps.streams ?? createStreamSlots(deps.config);
  let stopping = false;
  const app = createApp({ ...deps, queues, redis, metrics, queued, streams, stopping: () => stopping });
  const { config } = deps;
  const { server, port } = await listen(app, config, config.PORT, config.HOST);
  const staff =
    config.STAFF_PORT === undefined
      ? undefined
      : await listen(
          createStaffApp({ ...deps, queues, redis, metrics, streams }),
          config,
          config.STAFF_PORT,
          config.STAFF_HOST,
        );
  return {
    server,
    port,
    staff,
    async stop() {
      // Readiness answers 503 from now on; the listener keeps serving while the load balancer (the
      // Service's endpoints) stops routing here.
      stopping = true;
      deps.logger.info({ delayMs: config.SHUTDOWN_DELAY_MS }, 'stopping: not ready, still serving');
      if (config.SHUTDOWN_DELAY_MS > 0) await new Promise((resolve) => setTimeout(resolve, config.SHUTDOWN_DELAY_MS));
      // Queued writes still waiting answer 503 result_pending with their Location (their jobs go on),
      // instead of being cut when the connections close.
      queued.drain();
      deps.logger.info('stopping: listener closing');
      // Staff pages hold no long downloads: closing their sockets at once loses nothing.
      const staffClosed = staff && new Promise<void>((resolve) => staff.server.close(() => resolve()));
      staff?.server.closeAllConnections();
      // Stop accepting connections; requests in flight finish, idle keep-alive sockets are closed, and
      // every answer from now on closes its connection.
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeIdleConnections();
      // A client that never finishes reading (a stalled list download) must not block shutdown forever.
      const force = setTimeout(() => server.closeAllConnections(), config.SHUTDOWN_DRAIN_MS);
      await closed;
      await staffClosed;
      clearTimeout(force);
      queued.close();
      if (!deps.queues) await queues.close();
      if (!deps.redis) redis.disconnect();
    },
  };
}
