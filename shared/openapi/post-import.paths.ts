// The four writes onto an imported account: notes and historical statements (answered in the
// request), transactions and payment instructions (queued, answered with what the worker stored).
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { notesRequestSchema, NoteResult } from '../notes/note.schemas';
import { CreatePaymentInstructionRequest } from '../payment-instructions/payment-instruction.schemas';
import { statementsAnswerSchema, statementsRequestSchema } from '../statements/statement.schemas';
import { TransactionsRequest } from '../transactions/transaction.schemas';
import {
  PaymentInstructionCreated,
  TransactionImportErrorBody,
  TransactionsCreated,
  ValidationErrorBody,
} from './bodies.schemas';
import { ERRORS } from './error-codes';
import * as ex from './examples';
import {
  errorResponses,
  jsonRequest,
  jsonResponse,
  REPLAYED_HEADER,
  REQUEST_ID_HEADER,
  withErrorCodes,
} from './responses';
import { annotate, named } from './schema-registry';
import type { DocsConfig } from './docs-config';
import { paymentInstructionJob } from '../payment-instructions/payment-instruction.job';
import { transactionImportJob } from '../transactions/transaction.job';

const TAG = 'Post account import';
const SECURITY = [{ Token: [] }];

/** Stripe's rule, as shared/requests/idempotency-key.ts checks it. */
const IdempotencyKeyHeader = annotate(
  z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/)
    .optional(),
  {
    description:
      'Makes a retry safe: the same key with the same request within 24 h replays the stored answer (also after a 503 ' +
      '`result_pending`); the same key with a different request is refused with 422. 1 to 255 printable ASCII characters.',
    example: '4f8d1c2e-7a2b-4c55-9d1e-acme-0001',
  },
);

/** As shared/requests/request-headers.ts checks it. */
const RunIdHeader = annotate(
  z
    .string()
    .regex(/^[\x20-\x7e]{1,64}$/)
    .optional(),
  {
    description:
      "The client's migration run, stored with the request so support staff can find a run's refusals. 1 to 64 printable ASCII characters.",
    example: 'acme-2026-11-25-transactions',
  },
);

const QueuedHeaders = z.object({ 'Idempotency-Key': IdempotencyKeyHeader, 'Data-Import-Run-Id': RunIdHeader });

const queryBoolean = (fallback: boolean, description: string) =>
  annotate(z.boolean().optional(), {
    description: `${description} Also accepts \`1\`/\`0\`, in any case.`,
    default: fallback,
  });

const ImportOptionsQuery = z.object({
  check_previously_added: queryBoolean(
    true,
    'Skip transactions whose `transaction_id` the account already has (`TRANSACTION_ALREADY_EXISTS`).',
  ),
  force_add_to_current_statement: queryBoolean(
    true,
    'Move a transaction dated outside the open statement period to its nearest day inside it (a description says so and a note is pinned to the account) instead of rejecting the request.',
  ),
});

const queued = (waitMs: number) =>
  `The work is queued and run by a worker under a per-account lock; the answer is the one the worker stored. ` +
  `A request still unfinished after ${waitMs / 1000} s answers 503 \`result_pending\` and its work goes on: poll its \`Location\` ` +
  '(`GET /v1/data-import/requests/{request_id}/`) or retry it with the same `Idempotency-Key` to collect the answer. A replayed ' +
  'answer carries `Idempotent-Replayed: true`.';

export function registerPostImportPaths(registry: OpenAPIRegistry, config: DocsConfig): void {
  const max = config.MAX_ITEMS_PER_REQUEST;
  const statementsRequest = named('HistoricalStatementsRequest', statementsRequestSchema(max));
  const created = (description: string) => `${description} Responses carry \`X-Request-Id\`.`;

  registry.registerPath({
    method: 'post',
    path: '/v1/data-import/notes/create/',
    operationId: 'createNotes',
    tags: [TAG],
    summary: 'Add notes to an account',
    ...withErrorCodes(
      `Adds up to ${max} notes to an imported account in one transaction. A note is created only when the account has no ` +
        'note with the same `body` (and the same `created_at`, when one is sent); otherwise it is reported as `NOTE_ALREADY_EXISTS`. ' +
        'With `dry_run: true` (an addition to the contract) the answer is the same and nothing is written.',
      ERRORS.notes,
    ),
    security: SECURITY,
    request: {
      body: jsonRequest(named('NotesRequest', notesRequestSchema(max)), {
        contract: { summary: "The published contract's example", value: ex.notesRequest },
      }),
    },
    responses: {
      201: jsonResponse(
        created('One item per submitted note, in order.'),
        z.array(NoteResult),
        { created: { value: ex.notesCreated } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.notes, { 400: { examples: { invalid_input: { value: ex.invalidInput.notes } } } }),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v1/data-import/historical-statements/create/',
    operationId: 'createHistoricalStatements',
    tags: [TAG],
    summary: 'Import historical PDF statements onto an account',
    ...withErrorCodes(
      `Stores up to ${max} statements, all or none: if the account already has any of the \`statement_id\`s, nothing is stored. ` +
        'The PDFs are not uploaded here: `statement_path` points into object storage. With `dry_run: true` (an addition to the ' +
        'contract) the answer is the same, the already-stored check included, and nothing is written.',
      ERRORS.statements,
    ),
    security: SECURITY,
    request: {
      body: jsonRequest(statementsRequest, {
        contract: { summary: "The published contract's example", value: ex.statementsRequest },
      }),
    },
    responses: {
      201: jsonResponse(
        created('The validated request (unknown fields and `dry_run` removed).'),
        named('HistoricalStatementsCreated', statementsAnswerSchema(max)),
        { created: { value: ex.statementsRequest } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.statements, {
        400: { examples: { invalid_input: { value: ex.invalidInput.statements } } },
      }),
    },
  });

  annotate(TransactionsRequest.shape.transactions, { maxItems: max });
  registry.registerPath({
    method: 'post',
    path: `/v1/data-import/${transactionImportJob.endpoint}/`,
    operationId: 'createTransactions',
    tags: [TAG],
    summary: 'Import financial transactions to an account',
    ...withErrorCodes(
      `Imports 1 to ${max} transactions, all or nothing. A malformed envelope gets the standardized 400 body; a failing ` +
        'transaction gets the `TRANSACTION_IMPORT_ERROR` body naming the first one. With `dry_run: true` everything is checked ' +
        `and answered but nothing is written. ${queued(config.RESULT_WAIT_MS)}`,
      ERRORS.transactions,
    ),
    security: SECURITY,
    request: {
      query: ImportOptionsQuery,
      headers: QueuedHeaders,
      body: jsonRequest(named('TransactionsRequest', TransactionsRequest), {
        contract: { summary: "The published contract's example", value: ex.transactionsRequest },
      }),
    },
    responses: {
      201: jsonResponse(
        created('One result per submitted transaction, in order.'),
        TransactionsCreated,
        {
          added: { value: ex.transactionsCreated },
          alreadyAdded: { summary: 'The same request again', value: ex.transactionsAlreadyAdded },
        },
        { ...REQUEST_ID_HEADER, ...REPLAYED_HEADER },
      ),
      ...errorResponses(ERRORS.transactions, {
        400: {
          schema: z.union([ValidationErrorBody, TransactionImportErrorBody]),
          examples: {
            invalid_input: { summary: 'The envelope failed validation', value: ex.invalidInput.transactions },
            TRANSACTION_IMPORT_ERROR: {
              summary: 'Outside the open statement period, force off',
              value: ex.transactionOutsidePeriod,
            },
            TRANSACTION_IMPORT_ERROR_validation: {
              summary: 'A transaction failed validation',
              value: ex.transactionInvalid,
            },
          },
        },
      }),
    },
  });

  registry.registerPath({
    method: 'post',
    path: `/v1/data-import/${paymentInstructionJob.endpoint}/`,
    operationId: 'createPaymentInstruction',
    tags: [TAG],
    summary: 'Create a payment instruction',
    ...withErrorCodes(
      'Verifies the instruction at the payment vendor (for STRIPE: the PaymentMethod must exist, be a card, be attached to a ' +
        'customer and not be expired) and stores it. Sending the same vendor and reference again answers 201 without asking the ' +
        `vendor. A 400 must not be retried as it is; a 500 should be. With \`dry_run: true\` (an addition to the contract) the ` +
        `vendor is asked and every check runs, the answer is the same, and nothing is written. ${queued(config.RESULT_WAIT_MS)}`,
      ERRORS.paymentInstructions,
    ),
    security: SECURITY,
    request: {
      headers: QueuedHeaders,
      body: jsonRequest(named('PaymentInstructionRequest', CreatePaymentInstructionRequest), {
        contract: { summary: "The published contract's example", value: ex.paymentInstructionRequest },
      }),
    },
    responses: {
      201: jsonResponse(
        created('Stored (or already stored).'),
        PaymentInstructionCreated,
        { created: { value: ex.paymentInstructionCreated } },
        {
          ...REQUEST_ID_HEADER,
          ...REPLAYED_HEADER,
        },
      ),
      ...errorResponses(ERRORS.paymentInstructions, {
        400: { examples: { invalid_input: { value: ex.invalidInput.paymentInstructions } } },
      }),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/v1/data-import/requests/{request_id}/',
    operationId: 'getQueuedRequestAnswer',
    tags: [TAG],
    summary: "Poll a queued write's answer",
    ...withErrorCodes(
      'The answer of a transactions or payment-instruction request that answered 503 (its `Location`), with the status and body ' +
        'the request itself would have answered (201, 400, 404, 500 "retry as it is", or 503 `queue_unavailable`); while its ' +
        'work is still queued or running, 503 `result_pending` again. A client without an `Idempotency-Key` polls this instead ' +
        "of posting again. Only the caller's own organisation's requests; answers are kept 24 h after they finish.",
      ERRORS.requestAnswer,
    ),
    security: SECURITY,
    request: { params: z.object({ request_id: annotate(z.uuid(), { description: 'The `request_id` of the 503.' }) }) },
    responses: {
      201: jsonResponse(
        'The stored answer of the request.',
        z.union([TransactionsCreated, PaymentInstructionCreated]),
        {
          transactions: { value: ex.transactionsCreated },
          paymentInstruction: { value: ex.paymentInstructionCreated },
        },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.requestAnswer),
    },
  });
}
