// The HTTP facade: createApp wires routes to their dependencies; startApi/stop own the listener.
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Redis } from 'ioredis';
import type { Server } from 'node:http';
import { createTokenSigner, type TokenSigner } from '../shared/auth/access-token';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';
import { createJobQueues, type JobQueues } from '../shared/platform/jobs';
import { processMetrics, type Metrics } from '../shared/platform/metrics';
import { createRedis, untilReady } from '../shared/platform/redis';
import { createQueuedRequests, type QueuedRequests } from '../shared/requests/queued-request';
import { authenticate } from './auth/authenticate';
import { errorMiddleware, notFoundHandler, requireJsonBody } from './error-middleware';
import { httpMetrics, requestId, requestLogger } from './observability';
import { organisationRateLimit, tokenRateLimit } from './rate-limits';
import { docsRoutes } from './routes/docs.routes';
import { healthRoutes } from './routes/health.routes';
import { staffRoutes } from './staff';
import { createStaffApp } from './staff-server';
import { accountRoutes } from './routes/accounts.routes';
import { graphqlHandler } from './routes/graphql.routes';
import { noteRoutes } from './routes/notes.routes';
import { paymentInstructionRoutes } from './routes/payment-instructions.routes';
import { statementRoutes } from './routes/statements.routes';
import { transactionRoutes } from './routes/transactions.routes';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  redis: Redis;
  queues: JobQueues;
  queued: QueuedRequests;
  metrics: Metrics;
  /** Gauges filled at scrape time by parts that live in this process (in-process workers). */
  collectors?: (() => void)[];
  signer?: TokenSigner;
  now?: () => Date;
  /** True once startApi's stop() began draining: every answer then closes its connection. */
  stopping?: () => boolean;
}

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
  // With STAFF_PORT they are served by their own listener instead (api/staff-server.ts).
  if (config.STAFF_PORT === undefined) app.use(staffRoutes(deps));

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
  /** The staff pages' own listener, when STAFF_PORT is set. */
  staff?: { server: Server; port: number };
  stop(): Promise<void>;
}

function listen(app: Express, port: number, host: string): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const server = app.listen(port, host, (err?: Error) => {
      if (err) return reject(err);
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : port });
    });
  });
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
  const { server, port } = await listen(app, deps.config.PORT, deps.config.HOST);
  const staffPort = deps.config.STAFF_PORT;
  const staff = staffPort === undefined ? undefined : await listen(createStaffApp({ ...deps, queues, redis, metrics }), staffPort, deps.config.HOST);
  return {
    server,
    port,
    staff,
    async stop() {
      stopping = true;
      // Staff pages hold no long downloads: closing their sockets at once loses nothing.
      const staffClosed = staff && new Promise<void>((resolve) => staff.server.close(() => resolve()));
      staff?.server.closeAllConnections();
      // Stop accepting connections; requests in flight finish, idle keep-alive sockets are closed, and
      // every answer from now on closes its connection.
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeIdleConnections();
      // A client that never finishes reading (a stalled list download) must not block shutdown forever.
      const force = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      await staffClosed;
      clearTimeout(force);
      queued.close();
      if (!deps.queues) await queues.close();
      if (!deps.redis) redis.disconnect();
    },
  };
}
