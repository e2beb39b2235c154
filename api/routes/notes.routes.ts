// POST /v1/data-import/notes/create/ (synchronous): validate, then write in one transaction (with its run-ledger rows).
import { Router } from 'express';
import { createNotesEndpoint } from '../../shared/notes/note.endpoint';
import { notesRequestSchema } from '../../shared/notes/note.schemas';
import { createNotes } from '../../shared/notes/note.use-cases';
import { parseOrThrow } from '../../shared/platform/validation';
import { callerOf } from '../auth/authenticate';
import type { AppDeps } from '../app-deps';
import { routeOf } from '../endpoint-path';
import { ledgerInTransaction } from '../run-ledger';

export function noteRoutes(deps: AppDeps): Router {
  const router = Router();
  const schema = notesRequestSchema(deps.config.MAX_ITEMS_PER_REQUEST);

  router.post(routeOf(createNotesEndpoint), async (req, res) => {
    // The body is validated before the account is looked up: a malformed request is a 400, never a 404.
    const request = parseOrThrow(schema, req.body);
    const { organisationId } = callerOf(req);
    res.status(201).json(await createNotes(deps, organisationId, request, ledgerInTransaction(res)));
  });

  return router;
}
