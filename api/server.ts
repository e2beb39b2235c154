// The HTTP facade: createApp wires routes to their dependencies; startApi/stop own the listener.
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Server } from 'node:http';
import { createTokenSigner } from '../shared/auth/access-token';
import { createJobQueues } from '../shared/platform/jobs';
import { processMetrics } from '../shared/platform/metrics';
import { createRedis, untilReady } from '../shared/platform/redis';
import { createQueuedRequests } from '../shared/requests/queued-request';
import type { AppDeps } from './app-deps';
import { authenticate } from './auth/authenticate';
import { errorMiddleware, notFoundHandler, requireJsonBody } from './error-middleware';
import { httpMetrics, requestId, requestLogger } from './observability';
import { organisationRateLimit, tokenRateLimit } from './rate-limits';
import { docsRoutes } from './routes/docs.routes';
import { healthRoutes } from './routes/health.routes';
import { staffRoutes } from './staff';
import { accountRoutes } from './routes/accounts.routes';
import { graphqlHandler } from './routes/graphql.routes';
import { noteRoutes } from './routes/notes.routes';
import { paymentInstructionRoutes } from './routes/payment-instructions.routes';
import { statementRoutes } from './routes/statements.routes';
import { transactionRoutes } from './routes/transactions.routes';

export function createApp(deps: AppDeps): Express {
  const { config, db, logger, redis } = deps;
  const signer = deps.signer ?? createTokenSigner(config.TOKEN_SECRET, config.TOKEN_TTL_SECONDS);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (config.TRUST_PROXY !== undefined) app.set('trust proxy', config.TRUST_PROXY);
  // Keep-alive clients would otherwise go on sending on their open sockets, so a stopping server
  // never drains and its force-close cuts whatever is in flight.
  app.use((_req, res, next) => {
    if (deps.stopping?.()) res.shouldKeepAlive = false;
    next();
  });
  app.use(helmet());
  app.use(requestId());
  app.use(requestLogger(logger));
  app.use(httpMetrics(deps.metrics));
  app.use(healthRoutes(deps));
  // Public documentation: mounted before /v1, whose routers authenticate.
  app.use(docsRoutes(config));
  // Staff pages read only their session cookie; the data-import API below reads only Authorization.
  app.use(staffRoutes(deps));

  const v1 = express.Router();
  v1.use(requireJsonBody());
  // Unknown JSON is parsed into plain objects; `__proto__` keys stay data (JSON.parse never assigns prototypes).
  v1.use(express.json({ limit: config.BODY_LIMIT_BYTES, strict: false }));
  v1.post(
    '/graphql/',
    tokenRateLimit(redis, config),
    graphqlHandler({ db, signer, refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS, now: deps.now }),
  );

  const dataImport = express.Router();
  dataImport.use(authenticate(signer));
  dataImport.use(organisationRateLimit(redis, config));
  dataImport.use(accountRoutes(db, logger));
  dataImport.use(noteRoutes(deps));
  dataImport.use(statementRoutes(deps));
  dataImport.use(transactionRoutes(deps));
  dataImport.use(paymentInstructionRoutes(deps));
  v1.use('/data-import', dataImport);
  app.use('/v1', v1);

  app.use(notFoundHandler());
  app.use(errorMiddleware(logger));
  return app;
}

export interface RunningApi {
  server: Server;
  port: number;
  stop(): Promise<void>;
}

export type ApiOptions = Pick<AppDeps, 'config' | 'db' | 'logger'> & Partial<Omit<AppDeps, 'queued'>>;

/** Starts the listener; creates the Redis connection, queues and metrics it is not given (and closes only those). */
export async function startApi(deps: ApiOptions): Promise<RunningApi> {
  const queues = deps.queues ?? createJobQueues(deps.config);
  const redis = deps.redis ?? createRedis(deps.config.REDIS_URL, 'producer');
  await untilReady(redis);
  const metrics = deps.metrics ?? processMetrics();
  const queued = createQueuedRequests({ db: deps.db, queues, waitMs: deps.config.RESULT_WAIT_MS });
  let stopping = false;
  const app = createApp({ ...deps, queues, redis, metrics, queued, stopping: () => stopping });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(deps.config.PORT, deps.config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.PORT;
  return {
    server,
    port,
    async stop() {
      stopping = true;
      // Stop accepting connections; requests in flight finish, idle keep-alive sockets are closed, and
      // every answer from now on closes its connection.
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeIdleConnections();
      // A client that never finishes reading (a stalled list download) must not block shutdown forever.
      const force = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(force);
      queued.close();
      if (!deps.queues) await queues.close();
      if (!deps.redis) redis.disconnect();
    },
  };
}
