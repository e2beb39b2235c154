// The staff side of the API process: sign-in (/login, /logout), the queue dashboard (/admin/queues)
// and the support page (/support/). Mounted by api/server.ts beside the data-import API; the two
// share nothing but the process: staff pages authenticate by session cookie only, the API by
// Authorization only.
import { Router } from 'express';
import helmet from 'helmet';
import type { RedisClient } from '../../shared/platform/redis';
import { usesDevSessionSecret, type Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import type { JobQueues } from '../../shared/platform/queues';
import type { Logger } from '../../shared/platform/logger';
import { staffErrorPages } from './error-pages';
import { loginRoutes } from './login.routes';
import { BOARD_PATH, queueRoutes } from './queues.routes';
import { loadStaff, requireStaff, secureCookies, staffSession } from './session';
import { supportRoutes } from './support.routes';
import { supportRunRoutes } from './support-runs.routes';
import { runLinkRoutes } from './run-link.routes';
import { STYLESHEET_PATH } from './views/layout';
import { STAFF_CSS } from './views/staff.css';
import type { StreamSlots } from '../streaming';

/** What the staff pages need of AppDeps (api/app-deps.ts); AppDeps itself fits. */
export interface StaffDeps {
  config: Config;
  /** The process's stream slots: CSV downloads take the staff pool (they hold database connections as lists do). */
  streams: StreamSlots;
  db: Database;
  logger: Logger;
  redis: RedisClient;
  queues: JobQueues;
  now?: () => Date;
}

const STAFF_PATHS = ['/login', '/logout', '/support', BOARD_PATH];

// The staff pages run no script of their own; the dashboard runs its bundled scripts and inline styles.
const pageHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: {
      defaultSrc: ["'none'"],
      styleSrc: ["'self'"],
      imgSrc: ["'self'"],
      formAction: ["'self'"],
      frameAncestors: ["'none'"],
      baseUri: ["'none'"],
    },
  },
});
const boardHeaders = helmet.contentSecurityPolicy({
  useDefaults: false,
  directives: {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    imgSrc: ["'self'", 'data:'],
    fontSrc: ["'self'", 'data:'],
    connectSrc: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
    baseUri: ["'self'"],
    objectSrc: ["'none'"],
  },
});

export function staffRoutes(deps: StaffDeps): Router {
  const c = deps.config;
  if (usesDevSessionSecret(c))
    deps.logger.warn('SESSION_SECRET is the development default: set it outside development');
  const router = Router();

  router.get(STYLESHEET_PATH, (_req, res) => {
    res.type('css').set('Cache-Control', 'public, max-age=3600').send(STAFF_CSS);
  });
  router.use(STAFF_PATHS, pageHeaders, (_req, res, next) => {
    res.set('Cache-Control', 'no-store');
    next();
  });
  router.use(BOARD_PATH, boardHeaders);
  router.use(STAFF_PATHS, staffSession(deps, c), loadStaff(deps, c));
  router.use(loginRoutes(deps, c));
  router.use('/support', requireStaff());
  router.use(supportRoutes(deps));
  router.use(supportRunRoutes(deps));
  router.use(runLinkRoutes(deps));
  router.use(queueRoutes(deps, secureCookies(c)));
  router.use(staffErrorPages());
  return router;
}
