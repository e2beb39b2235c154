// POST /v1/data-import/payment-instruction/create/ (to be implemented)
import { Router } from 'express';
import type { AppDeps } from '../server';

export function paymentInstructionRoutes(_deps: AppDeps): Router {
  return Router();
}
