// POST /v1/data-import/transactions/create/ (to be implemented)
import { Router } from 'express';
import type { AppDeps } from '../server';

export function transactionRoutes(_deps: AppDeps): Router {
  return Router();
}
