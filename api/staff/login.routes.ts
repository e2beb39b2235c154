// Sign-in and sign-out. A failed sign-in says only that it failed: never whether the username
// exists or the account is disabled.
import express, { Router, type Request, type Response } from 'express';
import type { Logger } from '../../shared/platform/logger';
import { signIn } from '../../shared/staff/staff.use-cases';
import type { StaffRoleName } from '../../shared/staff/staff.schemas';
import { csrfToken, requireCsrf } from './csrf';
import { createHashingGate, SignInBusyError } from './hashing-gate';
import { isLoginTokenValid, issueLoginToken, type LoginCsrfSettings } from './login-csrf';
import { loginRateLimit, userLoginRateLimit } from './login-rate-limit';
import { endStaffSession, secureCookies, sessionCookieName, startStaffSession, type SessionDeps } from './session';
import type { Config } from '../../shared/platform/config';
import { loginPage, logoutPage } from './views/login.view';

const HOME: Record<StaffRoleName, string> = { operator: '/admin/queues', support: '/support/' };
const FAILED =
  'Sign-in failed. Check the username and password; if they are right, ask an operator whether your account is active.';

/** Only paths of the staff pages themselves: never another origin (`//evil`) or the API. */
function safeNext(next: unknown): string | undefined {
  if (typeof next !== 'string' || next.length > 2000) return undefined;
  return /^\/(support\/|admin\/queues(\/|$|\?))[^\\\s]*$/.test(next) && !next.includes('//') ? next : undefined;
}

type LoginDeps = SessionDeps & { logger: Logger };
type ShowLogin = (req: Request, res: Response, status: number, extra?: { error?: string; username?: string }) => void;

export function loginRoutes(deps: LoginDeps, c: Config): Router {
  const router = Router();
  const form = express.urlencoded({ extended: false, limit: '8kb' });
  const csrf: LoginCsrfSettings = {
    secrets: c.SESSION_SECRET_PREVIOUS ? [c.SESSION_SECRET, c.SESSION_SECRET_PREVIOUS] : [c.SESSION_SECRET],
    secure: secureCookies(c),
  };
  const showLogin = loginFormSender(csrf);

  router.get('/login', (req, res) => {
    if (req.staff) return res.redirect(303, HOME[req.staff.role]);
    showLogin(req, res, 200);
  });
  router.post('/login', ...signInLimits(deps, c, form, showLogin), signInHandler(deps, c, csrf, showLogin));
  addLogoutRoutes(router, deps, c, form);
  return router;
}

/** Sends the sign-in form with a fresh token. The form's token lives in a cookie, not a session: no session
 * exists before a sign-in succeeds. */
function loginFormSender(csrf: LoginCsrfSettings): ShowLogin {
  return (req, res, status, extra = {}) => {
    const token = issueLoginToken(req, res, csrf);
    res
      .status(status)
      .type('html')
      .send(
        loginPage({
          csrfToken: token,
          next: safeNext((req.body as { next?: unknown } | undefined)?.next ?? req.query.next),
          ...extra,
        }),
      );
  };
}

/** The per-address limit, the form parser, then the per-username limit (which needs the parsed form). */
function signInLimits(deps: LoginDeps, c: Config, form: express.RequestHandler, showLogin: ShowLogin) {
  const tooMany = (req: Request, res: Response) =>
    showLogin(req, res, 429, { error: 'Too many failed sign-ins. Wait a while, then try again.' });
  return [
    loginRateLimit(deps.redis, { prefix: c.QUEUE_PREFIX, perMinute: c.STAFF_LOGIN_RATE_LIMIT_PER_MINUTE }, tooMany),
    form,
    userLoginRateLimit(
      deps.redis,
      { prefix: c.QUEUE_PREFIX, perHour: c.STAFF_LOGIN_RATE_LIMIT_PER_USER_PER_HOUR },
      tooMany,
    ),
  ];
}

function signInHandler(deps: LoginDeps, c: Config, csrf: LoginCsrfSettings, showLogin: ShowLogin) {
  const now = () => (deps.now ?? (() => new Date()))();
  // One per app, and one app per process: every sign-in of this process queues here.
  const hashing = createHashingGate({ concurrency: c.STAFF_HASH_CONCURRENCY, waitMs: c.STAFF_HASH_WAIT_MS });
  return async (req: Request, res: Response) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    if (!isLoginTokenValid(req, csrf)) {
      return showLogin(req, res, 403, { error: 'The sign-in form had expired. Please sign in again.' });
    }
    let staff;
    try {
      staff = await hashing.run(() => signIn(deps.db, body, now()));
    } catch (err) {
      if (!(err instanceof SignInBusyError)) throw err;
      res.set('Retry-After', String(err.retryAfterSeconds));
      return showLogin(req, res, 429, { error: err.message });
    }
    if (!staff) {
      deps.logger.warn({ ip: req.ip }, 'staff sign-in failed');
      return showLogin(req, res, 401, {
        error: FAILED,
        username: typeof body.username === 'string' ? body.username : undefined,
      });
    }
    await startStaffSession(req, staff, now());
    deps.logger.info({ staff: staff.username, role: staff.role }, 'staff signed in');
    res.redirect(303, safeNext(body.next) ?? HOME[staff.role]);
  };
}

function addLogoutRoutes(router: Router, deps: LoginDeps, c: Config, form: express.RequestHandler): void {
  router.get('/logout', (req, res) => {
    if (!req.staff) return res.redirect(303, '/login');
    res.type('html').send(logoutPage({ staff: req.staff, csrfToken: csrfToken(req) }));
  });

  // Without a live session there is nothing to end (and no token to check).
  const signedIn: express.RequestHandler = (req, res, next) => (req.staff ? next() : res.redirect(303, '/login'));

  router.post('/logout', form, signedIn, requireCsrf(), async (req, res) => {
    deps.logger.info({ staff: req.staff?.username }, 'staff signed out');
    await endStaffSession(req);
    // Same attributes as the cookie itself: browsers ignore a __Host- cookie's removal without Secure.
    res.clearCookie(sessionCookieName(c), {
      path: '/',
      httpOnly: true,
      sameSite: 'lax',
      secure: c.STAFF_COOKIE_SECURE === 'true' || req.secure,
    });
    res.redirect(303, '/login');
  });
}
