// POST /v1/data-import/notes/create/ (to be implemented)
import { Router } from 'express';
import type { AppDeps } from '../server';

export function noteRoutes(_deps: AppDeps): Router {
  return Router();
}
