// POST /v1/data-import/historical-statements/create/ (to be implemented)
import { Router } from 'express';
import type { AppDeps } from '../server';

export function statementRoutes(_deps: AppDeps): Router {
  return Router();
}
