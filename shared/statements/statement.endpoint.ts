// POST /v1/data-import/historical-statements/create/ (synchronous): the handler is
// api/routes/statements.routes.ts.
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { contractExample, created } from '../openapi/operation-parts';
import { jsonRequest, jsonResponse, REQUEST_ID_HEADER } from '../openapi/responses';
import { named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { statementsAnswerSchema, statementsRequestSchema } from './statement.schemas';

export const createStatementsEndpoint = endpoint({
  method: 'post',
  path: '/v1/data-import/historical-statements/create/',
  operationId: 'createHistoricalStatements',
  errors: ERRORS.statements,
  ledger: {
    subject: {
      supplier: 'import_supplier',
      account: ['external_account_number'],
      list: 'statements',
      dryRun: ['dry_run'],
    },
  },
  describe: (config) => ({
    tag: 'Post account import',
    summary: 'Import historical PDF statements onto an account',
    description:
      `Stores up to ${config.MAX_ITEMS_PER_REQUEST} statements, all or none: if the account already has any of the \`statement_id\`s, nothing is stored. ` +
      'The PDFs are not uploaded here: `statement_path` points into object storage. With `dry_run: true` (an addition to the ' +
      'contract) the answer is the same, the already-stored check included, and nothing is written.',
    request: {
      body: jsonRequest(
        named('HistoricalStatementsRequest', statementsRequestSchema(config.MAX_ITEMS_PER_REQUEST)),
        contractExample(ex.statementsRequest),
      ),
    },
    answers: {
      201: jsonResponse(
        created('The validated request (unknown fields and `dry_run` removed).'),
        named('HistoricalStatementsCreated', statementsAnswerSchema(config.MAX_ITEMS_PER_REQUEST)),
        { created: { value: ex.statementsRequest } },
        REQUEST_ID_HEADER,
      ),
    },
    errorExamples: { 400: { examples: { invalid_input: { value: ex.invalidInput.statements } } } },
  }),
});
