// CSRF defence for the staff pages: a synchronizer token kept in the session (csrf-sync), on top of
// SameSite cookies. Forms carry it in `_csrf`. The queue dashboard's own client (axios) copies the
// XSRF-TOKEN cookie into an X-XSRF-TOKEN header on same-origin requests, so the dashboard gets the
// token in that cookie. A cross-site page can neither read the cookie nor set the header.
import type { Request, RequestHandler } from 'express';
import { csrfSync } from 'csrf-sync';
import { AppError } from '../../shared/platform/errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

const { generateToken, isRequestValid } = csrfSync({
  size: 32,
  getTokenFromRequest: (req) => {
    const field = (req.body as { _csrf?: unknown } | undefined)?._csrf;
    return typeof field === 'string' ? field : req.get('x-xsrf-token');
  },
});

class CsrfError extends AppError {
  constructor() {
    super(403, 'csrf_failed', 'This form has expired or did not come from this site. Reload the page and try again.');
  }
}

/** The session's token (made on first use; it lives as long as the session). */
export function csrfToken(req: Request): string {
  return generateToken(req);
}

function isCsrfValid(req: Request): boolean {
  return SAFE_METHODS.has(req.method) || isRequestValid(req);
}

export function requireCsrf(): RequestHandler {
  return (req, _res, next) => {
    if (!isCsrfValid(req)) throw new CsrfError();
    next();
  };
}

/**
 * For the dashboard, mounted at its base path: the token in a cookie its JavaScript can read (only
 * this origin's pages can), set when the page itself loads.
 */
export function exposeCsrfCookie(secure: boolean | 'auto'): RequestHandler {
  return (req, res, next) => {
    if (req.method === 'GET' && !req.path.startsWith('/api/') && !req.path.startsWith('/static/')) {
      res.cookie('XSRF-TOKEN', csrfToken(req), {
        httpOnly: false,
        sameSite: 'strict',
        secure: secure === 'auto' ? req.secure : secure,
        path: '/admin/queues',
      });
    }
    next();
  };
}
