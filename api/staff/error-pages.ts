// Errors on the staff pages become HTML pages a person can read. The dashboard's JSON API and
// anything that is not an AppError go on to the app's error middleware (JSON bodies; 500 with an id).
import type { ErrorRequestHandler } from 'express';
import { AppError } from '../../shared/platform/errors';
import { csrfToken } from './csrf';
import { errorPage } from './views/login.view';

export function staffErrorPages(): ErrorRequestHandler {
  return (err: unknown, req, res, next) => {
    const wantsPage = !req.originalUrl.startsWith('/admin/queues/api/') && req.accepts('html') !== false;
    if (res.headersSent || !(err instanceof AppError) || !wantsPage) return next(err);
    const ctx = req.staff && req.session ? { staff: req.staff, csrfToken: csrfToken(req) } : {};
    res
      .status(err.status)
      .type('html')
      .send(errorPage(ctx, err.status, err.message));
  };
}
