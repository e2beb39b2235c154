// The HTTP facade: createApp wires routes to their dependencies; startApi/stop own the listener.
import express, { type Express } from 'express';
import type { Server } from 'node:http';
import { createTokenSigner, type TokenSigner } from '../shared/auth/access-token';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';
import { authenticate } from './auth/authenticate';
import { errorMiddleware, notFoundHandler, requireJsonBody } from './error-middleware';
import { accountRoutes } from './routes/accounts.routes';
import { graphqlHandler } from './routes/graphql.routes';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
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

export async function startApi(deps: AppDeps): Promise<RunningApi> {
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(deps.config.PORT, deps.config.HOST, (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : deps.config.PORT;
  return {
    server,
    port,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      }),
  };
}
