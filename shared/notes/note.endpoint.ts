// POST /v1/data-import/notes/create/ (synchronous): the handler is api/routes/notes.routes.ts.
import { z } from 'zod';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { contractExample, created } from '../openapi/operation-parts';
import { jsonRequest, jsonResponse, REQUEST_ID_HEADER } from '../openapi/responses';
import { named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { NoteResult, notesRequestSchema } from './note.schemas';

export const createNotesEndpoint = endpoint({
  method: 'post',
  path: '/v1/data-import/notes/create/',
  operationId: 'createNotes',
  errors: ERRORS.notes,
  ledger: {
    subject: {
      supplier: 'import_supplier',
      account: ['external_account_number', 'account_number'],
      list: 'notes',
      dryRun: ['dry_run'],
    },
  },
  describe: (config) => ({
    tag: 'Post account import',
    summary: 'Add notes to an account',
    description:
      `Adds up to ${config.MAX_ITEMS_PER_REQUEST} notes to an imported account in one transaction. A note is created only when the account has no ` +
      'note with the same `body` (and the same `created_at`, when one is sent); otherwise it is reported as `NOTE_ALREADY_EXISTS`. ' +
      'With `dry_run: true` (an addition to the contract) the answer is the same and nothing is written.',
    request: {
      body: jsonRequest(
        named('NotesRequest', notesRequestSchema(config.MAX_ITEMS_PER_REQUEST)),
        contractExample(ex.notesRequest),
      ),
    },
    answers: {
      201: jsonResponse(
        created('One item per submitted note, in order.'),
        z.array(NoteResult),
        { created: { value: ex.notesCreated } },
        REQUEST_ID_HEADER,
      ),
    },
    errorExamples: { 400: { examples: { invalid_input: { value: ex.invalidInput.notes } } } },
  }),
});
