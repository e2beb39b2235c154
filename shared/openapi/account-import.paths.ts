// Account import: validate an account, stage it and process it (v1), schedule and validate it (v2), and read a
// process's v2 status.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { accountProcessJob } from '../account-import/account-creation.job';
import { EnergyAccountSchema, V2ValidateRequest } from '../account-import/energy-account';
import { ERRORS } from './error-codes';
import * as ex from './examples';
import { errorResponses, jsonRequest, jsonResponse, REQUEST_ID_HEADER, withErrorCodes } from './responses';
import { annotate, named } from './schema-registry';

const TAG = 'Account import';
const SECURITY = [{ Token: [] }];

const StagedProcess = named(
  'CreateOrUpdateAccountImportProcess',
  z.object({ external_account_number: z.string(), import_supplier_code: z.string() }),
);

const ImportError = z.object({
  code: z.string(),
  detail: z.string(),
  attr: z
    .string()
    .nullable()
    .optional()
    .describe('Where in the account the first fault is (`payment_instructions.0.reference`).'),
  request_id: z
    .string()
    .nullable()
    .optional()
    .describe('The request whose answer lists every fault (GET requests/<id>/).'),
  domain: z.string(),
});

const ImportStatusResponse = named(
  'ImportStatusResponse',
  z.object({
    status: z.enum([
      'PENDING',
      'IN_PROGRESS',
      'PROCESSED',
      'ERRORED',
      'DRY_RUN_SUCCEEDED',
      'DRY_RUN_ERRORED',
      'CANCELLED',
    ]),
    platform_identifier: z.string().nullable().describe('The platform account number once the account is created.'),
    created_at: z.string(),
    modified_at: z.string(),
    latest_event: z
      .object({ event: z.string(), occurred_at: z.string(), data: z.unknown() })
      .nullable()
      .describe('The latest transition of the process (EVENT_ACCOUNT_IMPORT_PROCESS_CREATED, _UPDATED, …).'),
    latest_error: ImportError.nullable().describe('The error of the latest failed attempt, if any.'),
  }),
);

const ProcessRequestBody = named(
  'ProcessAccountImportProcess',
  z.object({
    import_supplier_code: z.string().max(64),
    external_account_number: z.string().max(128),
    operations_team_name: z.string().max(255).nullable().optional(),
    dry_run: z.boolean().optional(),
  }),
);

const ProcessedAccount = named(
  'ProcessAccountImportProcessCreation',
  z.object({
    external_account_number: z.string(),
    platform_account_number: z.string().optional().describe('Absent on a dry run: creation would draw its own.'),
    dry_run: z.literal(true).optional().describe('Present on a dry run: nothing was kept.'),
  }),
);

const ScheduleRequestBody = named(
  'ScheduleAccountCreation',
  z.object({
    payload: z.unknown().describe('The account (EnergyAccount).'),
    task_params: z
      .object({
        is_dry_run: z.boolean().optional(),
        schedule_window_start: z.string().optional(),
        schedule_window_end: z.string().optional(),
      })
      .optional(),
  }),
);

const ScheduledCreation = named(
  'ScheduledAccountCreation',
  z.object({
    import_supplier_code: z.string(),
    external_identifier: z.string(),
    status: z.literal('PENDING'),
    request_id: z.string().describe('The queued request: GET /v1/data-import/requests/<request_id>/ answers its job.'),
    schedule_window_start: z.string(),
    schedule_window_end: z.string(),
    is_dry_run: z.boolean(),
  }),
);

const SUBSET =
  "The account is a named subset of the published contract's `EnergyAccount` (docs/account-import.md): a field the contract " +
  'names that this service does not support is refused with `field_not_supported` at its attr, never dropped; names the ' +
  'contract does not know are ignored.';

export function registerAccountImportPaths(registry: OpenAPIRegistry): void {
  const account = named('EnergyAccount', EnergyAccountSchema);
  const accountExample = {
    contract: { summary: "The published contract's example, in this service's subset", value: ex.accountRequest },
  };

  registry.registerPath({
    method: 'post',
    path: '/v1/data-import/validate-account/',
    operationId: 'validateAccount',
    tags: [TAG],
    summary: 'Validate account data before staging and creating an account',
    ...withErrorCodes(
      `${SUBSET} Checks every field and the contract's cross-checks, then the database's: the operations team, every ` +
        'tariff code against the product catalogue, and every meter point against the live accounts of the supplier. Nothing is stored.',
      ERRORS.validateAccount,
    ),
    security: SECURITY,
    request: { body: jsonRequest(account, accountExample) },
    responses: {
      200: jsonResponse(
        'The validated account (decimals with at least two places, unknown names left out).',
        account,
        { validated: { value: ex.accountRequest } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.validateAccount),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v1/data-import/account-import-process/create-or-update/',
    operationId: 'createOrUpdateAccountImportProcess',
    tags: [TAG],
    summary: 'Stage account data before creating an account',
    ...withErrorCodes(
      `${SUBSET} Validated by the same rules as validate-account, then stored: 201 the first time, 200 on each update, as ` +
        'often as wanted until the account is created. A Paused or Complete supplier stages nothing.',
      ERRORS.stageAccount,
    ),
    security: SECURITY,
    request: { body: jsonRequest(account, accountExample) },
    responses: {
      200: jsonResponse(
        'Staged data updated.',
        StagedProcess,
        { updated: { value: ex.accountStaged } },
        REQUEST_ID_HEADER,
      ),
      201: jsonResponse(
        'Staged for the first time.',
        StagedProcess,
        { staged: { value: ex.accountStaged } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.stageAccount, {
        400: { examples: { account_import_process_already_imported: { value: ex.accountAlreadyImported } } },
      }),
    },
  });

  registry.registerPath({
    method: 'post',
    path: `/v1/data-import/${accountProcessJob.endpoint}/`,
    operationId: 'processAccountImportProcess',
    tags: [TAG],
    summary: 'Create the account from its staged data',
    ...withErrorCodes(
      'Queued: a worker creates the account from the staged data in one transaction with the answer, and the request waits ' +
        'for it as a transactions batch does (503 `result_pending` with `Location` when the wait runs out; Idempotency-Key ' +
        'as on every queued write). The staged data is validated again first. `dry_run` does everything, answers as the real ' +
        'run would (with `dry_run: true`) and keeps nothing. Two calls, or a call racing a v2 schedule, create one account.',
      ERRORS.processAccount,
    ),
    security: SECURITY,
    request: { body: jsonRequest(ProcessRequestBody, { example: { value: ex.accountProcessRequest } }) },
    responses: {
      201: jsonResponse(
        'The account was created.',
        ProcessedAccount,
        { created: { value: ex.accountProcessed } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.processAccount),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v2/data-import/accounts/',
    operationId: 'scheduleAccountCreation',
    tags: [TAG],
    summary: 'Schedule the creation of an account',
    ...withErrorCodes(
      'Validates `payload` by the rules of validate-account (400), stages it, and schedules its creation for the window ' +
        '(default: now until 4 days from now); answers 201 at once, with the v2 status endpoint as `Location`. The job waits ' +
        "for the window's start; a window that ends before a worker starts it ends the process ERRORED with " +
        '`schedule_window_passed`. Operators can cancel a PENDING creation (`admin accounts cancel`).',
      ERRORS.scheduleAccount,
    ),
    security: SECURITY,
    request: {
      body: jsonRequest(ScheduleRequestBody, {
        example: { value: { payload: ex.accountRequest, task_params: { is_dry_run: false } } },
      }),
    },
    responses: {
      201: jsonResponse(
        'Scheduled.',
        ScheduledCreation,
        { scheduled: { value: ex.accountScheduled } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.scheduleAccount),
    },
  });

  registry.registerPath({
    method: 'post',
    path: '/v2/data-import/accounts/validate/',
    operationId: 'validateAccountV2',
    tags: [TAG],
    summary: 'Validate the payload for creating an account',
    ...withErrorCodes(
      `The rules of validate-account on \`payload\`. As in the published contract, \`attr\` names fields of the account ` +
        '(`customers.0.landline`); only a missing or malformed `payload` is reported at `payload`. Nothing is stored.',
      ERRORS.validateAccount,
    ),
    security: SECURITY,
    request: {
      body: jsonRequest(named('ValidateAccount', V2ValidateRequest), {
        contract: { summary: 'An account to validate', value: { payload: ex.accountRequest } },
      }),
    },
    responses: {
      200: jsonResponse('The payload is valid.', z.object({}), { valid: { value: {} } }, REQUEST_ID_HEADER),
      ...errorResponses(ERRORS.validateAccount),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/v2/data-import/accounts/{import_supplier_code}/{external_identifier}/',
    operationId: 'getAccountImportStatus',
    tags: [TAG],
    summary: 'Return the status of an account import process',
    ...withErrorCodes(
      'The v2 status of the process, its platform account number once created, and its latest event and error.',
      ERRORS.importStatus,
    ),
    security: SECURITY,
    request: {
      params: z.object({
        import_supplier_code: annotate(z.string().min(1), { example: ex.SUPPLIER }),
        external_identifier: annotate(z.string().min(1), { example: ex.EXTERNAL_ACCOUNT }),
      }),
    },
    responses: {
      200: jsonResponse(
        'The status of the account import.',
        ImportStatusResponse,
        { pending: { value: ex.importStatusPending }, errored: { value: ex.importStatusErrored } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.importStatus),
    },
  });
}
