// Staff sessions: an HttpOnly, signed, expiring cookie naming a session kept in Redis (see
// RedisSessionStore). Every request re-reads the user, so a disabled user or a changed password ends
// the session on every replica at once. Only the staff pages use this; the data-import API never
// looks at cookies, and the staff pages never look at Authorization.
import type { RequestHandler, Request } from 'express';
import session from 'express-session';
import type { RedisClient } from '../../shared/platform/redis';
import type { Database } from '../../shared/platform/db';
import { AppError } from '../../shared/platform/errors';
import { findSessionStaff, type StaffPrincipal } from '../../shared/staff/staff.use-cases';
import { RedisSessionStore } from './redis-session-store';
import type { Config } from '../../shared/platform/config';
import { href } from './views/html';

declare module 'express-session' {
  interface SessionData {
    /** Times in epoch milliseconds. */
    staff?: { id: number; generation: number; signedInAt: number; seenAt: number };
  }
}

declare module 'express-serve-static-core' {
  interface Request {
    staff?: StaffPrincipal;
  }
}

export interface SessionDeps {
  db: Database;
  redis: RedisClient;
  now?: () => Date;
}

type Settings = Config;

// seenAt is refreshed at most this often, so reading pages does not rewrite the session each time.
const SEEN_RESOLUTION_MS = 60_000;

export function sessionCookieName(c: Settings): string {
  // __Host- cookies must be Secure, host-only and Path=/: no subdomain can plant or overwrite them.
  return c.STAFF_COOKIE_SECURE === 'true' ? '__Host-staff_session' : 'staff_session';
}

export function secureCookies(c: Settings): boolean | 'auto' {
  return c.STAFF_COOKIE_SECURE === 'auto' ? 'auto' : c.STAFF_COOKIE_SECURE === 'true';
}

export function staffSession(deps: SessionDeps, c: Settings): RequestHandler {
  const idleMs = c.STAFF_SESSION_IDLE_SECONDS * 1000;
  return session({
    name: sessionCookieName(c),
    secret: c.SESSION_SECRET_PREVIOUS ? [c.SESSION_SECRET, c.SESSION_SECRET_PREVIOUS] : c.SESSION_SECRET,
    store: new RedisSessionStore(deps.redis, `${c.QUEUE_PREFIX}:staff-session:`, idleMs),
    resave: false,
    saveUninitialized: false,
    // Every answer pushes the cookie's and the Redis key's expiry out by the idle time.
    rolling: true,
    unset: 'destroy',
    cookie: { httpOnly: true, sameSite: 'lax', secure: secureCookies(c), path: '/', maxAge: idleMs },
  });
}

/** Sets req.staff from a live session; a session past its idle or absolute limit, or whose user changed, is dropped. */
export function loadStaff(deps: SessionDeps, c: Settings): RequestHandler {
  return async (req, _res, next) => {
    const s = req.session.staff;
    if (!s) return next();
    const now = (deps.now ?? (() => new Date()))().getTime();
    const expired =
      now - s.signedInAt > c.STAFF_SESSION_MAX_SECONDS * 1000 || now - s.seenAt > c.STAFF_SESSION_IDLE_SECONDS * 1000;
    const staff = expired ? undefined : await findSessionStaff(deps.db, s.id, s.generation);
    if (!staff) {
      await regenerate(req);
      return next();
    }
    req.staff = staff;
    if (now - s.seenAt >= SEEN_RESOLUTION_MS) s.seenAt = now;
    next();
  };
}

/** Pages redirect to the sign-in form; the dashboard's JSON API answers 401. */
export function requireStaff(): RequestHandler {
  return (req, res, next) => {
    if (req.staff) return next();
    if (req.method === 'GET' && !req.originalUrl.startsWith('/admin/queues/api/')) {
      res.redirect(303, href('/login', { next: req.originalUrl }));
      return;
    }
    // Not an AuthenticationError: that one tells API clients to send `Authorization: Token`.
    throw new AppError(401, 'not_authenticated', 'Sign in on /login first.');
  };
}

export function staffOf(req: Request): StaffPrincipal {
  if (!req.staff) throw new Error('route is not behind requireStaff()');
  return req.staff;
}

/** A fresh session id at sign-in, so an id planted before sign-in (session fixation) is worth nothing. */
export async function startStaffSession(req: Request, staff: StaffPrincipal, now: Date): Promise<void> {
  await regenerate(req);
  req.session.staff = { id: staff.id, generation: staff.generation, signedInAt: now.getTime(), seenAt: now.getTime() };
  req.staff = staff;
}

export async function endStaffSession(req: Request): Promise<void> {
  await regenerate(req);
  req.staff = undefined;
}

/** Deletes the stored session and starts an empty one (saved only if something is put in it). */
function regenerate(req: Request): Promise<void> {
  return new Promise((resolve, reject) => req.session.regenerate((err?: Error) => (err ? reject(err) : resolve())));
}
