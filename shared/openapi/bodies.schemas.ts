// Shapes of the bodies the service writes that no component declares as a zod schema: error bodies,
// the status and list reads, queued-write answers, health, and the GraphQL exchange. Each one is
// written from the code that produces it (named beside each schema).
import { z } from 'zod';
import { named } from './schema-registry';

const DECIMAL_STRING = '^-?\\d+\\.\\d{2,}$';

/** api/error-middleware.ts: every AppError that is not a validation error. */
export const ErrorBody = named(
  'Error',
  z.object({
    detail: z.string().describe('Human-readable. Wording may change; never parse it.'),
    code: z.string().describe('Stable machine-readable code.'),
  }),
  { description: '`{detail, code}`: the body of every error that is not a validation failure.' },
);

const FieldError = named(
  'FieldError',
  z.object({
    detail: z.string(),
    code: z.string(),
    attr: z
      .string()
      .describe(
        'Dot-delimited path to the offending input: field names and zero-based array indexes. `non_field_errors` for the whole body.',
      ),
  }),
);

/** shared/platform/errors.ts ValidationError.toBody. */
export const ValidationErrorBody = named(
  'ValidationError',
  z.object({ detail: z.string(), code: z.string(), errors: z.array(FieldError) }),
  {
    description:
      'The standardized 400 body. `code` names the failure as a whole; each item of `errors` names one input.',
  },
);

/** A queued request's 503: names the request whose answer `Location` serves. */
export const PendingErrorBody = named(
  'PendingError',
  z.object({
    detail: z.string(),
    code: z.string(),
    request_id: z
      .uuid()
      .optional()
      .describe(
        'The request whose answer `GET /v1/data-import/requests/{request_id}/` (the `Location` header) serves.',
      ),
  }),
  { description: '503 of a queued write: `result_pending` or `queue_unavailable`, with the request to poll.' },
);

/** api/error-middleware.ts: anything that is not an AppError. */
export const ServerErrorBody = named(
  'ServerError',
  z.object({
    detail: z.string(),
    code: z.string(),
    error_id: z
      .uuid()
      .optional()
      .describe('Present on unexpected errors: quote it to support; the log line carries the same id.'),
  }),
  {
    description:
      '500. `server_error` (unexpected) carries an `error_id`; the queued writes\' "retry as-is" answers do not.',
  },
);

/** shared/transactions/transaction-data.ts: a checked transaction as responses echo it. */
const TransactionData = named(
  'TransactionData',
  z
    .object({
      transaction_id: z.string(),
      transaction_date: z.string(),
      amount: z.string().regex(new RegExp(DECIMAL_STRING)),
      type: z.enum(['CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT', 'SUPPLY_CHARGE']),
    })
    .catchall(z.unknown()),
  {
    description:
      'The submitted transaction as validated: every decimal as a string with at least two places and every digit sent; ' +
      'dates as sent; fields the schema does not know are not echoed. On `TRANSACTION_ALREADY_EXISTS`, the transaction ' +
      'as stored by the request that added it.',
  },
);

const TransactionResult = named(
  'TransactionResult',
  z.object({
    status: z.enum(['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS']),
    matches_stored: z
      .literal(false)
      .optional()
      .describe(
        'Present, and false, only on a `TRANSACTION_ALREADY_EXISTS` item whose transaction as sent differs from the ' +
          'stored one (amount, type, date or any other field): `transaction_data` then shows what the account holds, ' +
          'not what was sent. Absent when what was sent is what is stored.',
      ),
    transaction_data: TransactionData,
    added_transaction_id: z
      .int()
      .optional()
      .describe(
        'Id of the stored transaction (a JSON integer, as the contract says); absent when it already existed or on a dry run.',
      ),
  }),
);

export const TransactionsCreated = named('TransactionsCreated', z.object({ results: z.array(TransactionResult) }));

/** shared/transactions/transaction.errors.ts TransactionImportError.toBody. */
export const TransactionImportErrorBody = named(
  'TransactionImportError',
  z.object({
    status: z.literal('TRANSACTION_IMPORT_ERROR'),
    error_detail: z.string().describe('Why the first failing transaction failed. Wording may change.'),
    transaction_data: z
      .unknown()
      .describe(
        'The first failing transaction: as sent when it failed validation, as echoed in 201 bodies when the import refused it.',
      ),
    errors: z
      .array(FieldError)
      .describe(
        'The field errors of every failing transaction (attr `transactions.N.…`), with stable codes: drop them all and resend the rest.',
      ),
  }),
  {
    description:
      "The transactions endpoint's own 400: nothing was imported; it names the first failing transaction and lists the errors of all of them.",
  },
);

/** shared/payment-instructions/payment-instruction.schemas.ts CreatedPaymentInstruction. */
export const PaymentInstructionCreated = named(
  'PaymentInstructionCreated',
  z.object({ platform_account_number: z.string(), reference: z.string() }),
);

/** shared/accounts/account.use-cases.ts getTransferStatus. */
export const TransferStatus = named(
  'AccountTransferStatus',
  z.object({
    status: z
      .enum(['UNKNOWN', 'COMPLETED', 'IN_PROGRESS'])
      .describe(
        'UNKNOWN: no account exists (staged, or an attempt failed). IN_PROGRESS: a migration is creating it. COMPLETED: created.',
      ),
    platform_account_number: z.string().describe('Empty string until an account exists.'),
  }),
);

/** api/routes/accounts.routes.ts streamJsonArray. */
export const ImportProcess = named(
  'ImportProcess',
  z.object({
    external_account_number: z.string(),
    platform_account_number: z.string().nullable().describe('Null while pending.'),
    account_created_at: z.iso.datetime().nullable().describe('UTC, whole seconds. Null while pending.'),
  }),
);

/** api/routes/health.routes.ts. */
export const Liveness = named('Liveness', z.object({ status: z.literal('ok') }));

const CheckState = z.enum(['ok', 'failing']);

export const Readiness = named(
  'Readiness',
  z.object({
    status: z
      .enum(['ready', 'unavailable', 'stopping'])
      .describe('`stopping`: the process is shutting down and will close its listener shortly.'),
    failing: z.array(z.enum(['postgres', 'redis'])),
    checks: z
      .object({
        postgres: CheckState,
        redis: CheckState,
        workers: z
          .enum(['ok', 'none'])
          .describe('Information only: whether some worker sent a heartbeat in the last 15 s. Never failing.'),
      })
      .describe('`ok` or `failing` per check; why one fails is in the service log only.'),
  }),
);

/** api/routes/graphql.routes.ts: GraphQL over HTTP. */
export const GraphQLRequest = named(
  'GraphQLRequest',
  z.object({
    query: z.string().describe("A GraphQL document; the service's one mutation is `obtainToken`."),
    variables: z.record(z.string(), z.unknown()).optional(),
    operationName: z.string().optional(),
  }),
);

const ObtainTokenPayload = named(
  'ObtainToken',
  z.object({
    token: z.string().describe('Send as `Authorization: Token <token>`.'),
    payload: z
      .record(z.string(), z.unknown())
      .describe('The decoded claims of the token (`sub`, `org`, `iat`, `exp`, `iss`, `aud`).'),
    refreshToken: z.string().nullable().describe('Single use; trade it for a new token before `refreshExpiresIn`.'),
    refreshExpiresIn: z.int().nullable().describe('Unix time (seconds) at which the refresh token expires.'),
  }),
);

const GraphQLError = named(
  'GraphQLError',
  z.object({
    message: z.string(),
    locations: z.array(z.object({ line: z.int(), column: z.int() })).optional(),
    path: z.array(z.union([z.string(), z.int()])).optional(),
    extensions: z
      .object({ code: z.string(), errorType: z.string() })
      .partial()
      .catchall(z.unknown())
      .optional()
      .describe(
        '`code` is stable for errors of obtainToken itself; syntax and validation errors of the query carry none.',
      ),
  }),
);

export const GraphQLResponse = named(
  'GraphQLResponse',
  z.object({
    data: z.object({ obtainToken: ObtainTokenPayload.nullable() }).nullable().optional(),
    errors: z.array(GraphQLError).optional(),
  }),
);
