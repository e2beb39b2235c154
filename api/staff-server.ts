// The staff pages on a listener of their own (STAFF_PORT), the production setting: the port can be
// kept off the internet by a firewall or a proxy rule, so a password guesser or an exploit in the
// dashboard never meets the public API's port. The main app then serves no staff page. It binds
// STAFF_HOST (loopback unless set), never the public HOST: a forgotten firewall rule exposes nothing.
import express, { type Express } from 'express';
import helmet from 'helmet';
import type { Metrics } from '../shared/platform/metrics';
import { errorMiddleware, notFoundHandler } from './error-middleware';
import { httpMetrics, requestId, requestLogger } from './observability';
import { routeLabeller } from './route-labels';
import { staffRoutes, type StaffDeps } from './staff';

export function createStaffApp(deps: StaffDeps & { metrics: Metrics }): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  if (deps.config.TRUST_PROXY !== undefined) app.set('trust proxy', deps.config.TRUST_PROXY);
  app.use(helmet());
  app.use(requestId());
  app.use(requestLogger(deps.logger));
  app.use(
    httpMetrics(
      deps.metrics,
      routeLabeller(() => app),
    ),
  );
  app.use(staffRoutes(deps));
  app.use(notFoundHandler());
  app.use(errorMiddleware(deps.logger, deps.config.LOAD_SHED_RETRY_AFTER_SECONDS));
  return app;
}
