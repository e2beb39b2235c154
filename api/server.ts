// The HTTP facade: createApp wires routes to their dependencies; startApi/stop own the listener.
import express, { type Express } from 'express';
import type { Server } from 'node:http';
import { createTokenSigner, type TokenSigner } from '../shared/auth/access-token';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';
import { createJobQueues, type JobQueues } from '../shared/platform/jobs';
import { createQueuedRequests, type QueuedRequests } from '../shared/requests/queued-request';
import { authenticate } from './auth/authenticate';
import { errorMiddleware, notFoundHandler, requireJsonBody } from './error-middleware';
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
  queued: QueuedRequests;
  signer?: TokenSigner;
  now?: () => Date;
}

export function createApp(deps: AppDeps): Express {
  const { config, db, logger } = deps;
  const signer = deps.signer ?? createTokenSigner(config.TOKEN_SECRET, config.TOKEN_TTL_SECONDS);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Unknown JSON is parsed into plain objects; `__proto__` keys stay data (JSON.parse never assigns prototypes).
  app.use(requireJsonBody());
  app.use(express.json({ limit: config.BODY_LIMIT_BYTES, strict: false }));

  app.post(
    '/v1/graphql/',
    graphqlHandler({ db, signer, refreshTtlSeconds: config.REFRESH_TOKEN_TTL_SECONDS, now: deps.now }),
  );

  const dataImport = express.Router();
  dataImport.use(authenticate(signer));
  dataImport.use(accountRoutes(db, logger));
  dataImport.use(noteRoutes(deps));
  dataImport.use(statementRoutes(deps));
  dataImport.use(transactionRoutes(deps));
  dataImport.use(paymentInstructionRoutes(deps));
  app.use('/v1/data-import', dataImport);

  app.use(notFoundHandler());
  app.use(errorMiddleware(logger));
  return app;
}

export interface RunningApi {
  server: Server;
  port: number;
  stop(): Promise<void>;
}

export async function startApi(
  deps: Omit<AppDeps, 'queued'> & { queues?: JobQueues },
): Promise<RunningApi> {
  const queues = deps.queues ?? createJobQueues(deps.config);
  const queued = createQueuedRequests({ db: deps.db, queues, waitMs: deps.config.RESULT_WAIT_MS });
  const app = createApp({ ...deps, queued });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(deps.config.PORT, deps.config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.PORT;
  return {
    server,
    port,
    async stop() {
      // Stop accepting connections; requests in flight finish, idle keep-alive sockets are closed.
      const closed = new Promise<void>((resolve, reject) => server.close((err) => (err ? reject(err) : resolve())));
      server.closeIdleConnections();
      // A client that never finishes reading (a stalled list download) must not block shutdown forever.
      const force = setTimeout(() => server.closeAllConnections(), 10_000);
      await closed;
      clearTimeout(force);
      queued.close();
      if (!deps.queues) await queues.close();
    },
  };
}
