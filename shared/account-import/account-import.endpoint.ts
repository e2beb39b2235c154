// Account import over HTTP: validate an account, stage it, process it (v1, queued: the request waits for
// the account), schedule it (v2, queued for its window: the request answers at once), validate a v2
// payload, and read a process's v2 status. The handlers are api/routes/account-import.routes.ts.
import { z } from 'zod';
import {
  ImportStatusResponse,
  ProcessedAccount,
  ProcessRequestBody,
  ScheduledCreation,
  ScheduleRequestBody,
  StagedProcess,
  SUBSET,
} from '../openapi/account-import.bodies';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { jsonRequest, jsonResponse, REQUEST_ID_HEADER } from '../openapi/responses';
import { annotate, named } from '../openapi/schema-registry';
import { endpoint, type EndpointDeclaration } from '../requests/endpoint-declaration';
import { accountProcessJob, accountScheduleJob } from './account-creation.job';
import { EnergyAccountSchema, V2ValidateRequest } from './energy-account';

const TAG = 'Account import';
const account = () => named('EnergyAccount', EnergyAccountSchema);
const accountExample = {
  contract: { summary: "The published contract's example, in this service's subset", value: ex.accountRequest },
};

export const validateAccountEndpoint = endpoint({
  method: 'post',
  path: '/v1/data-import/validate-account/',
  operationId: 'validateAccount',
  errors: ERRORS.validateAccount,
  describe: () => ({
    tag: TAG,
    summary: 'Validate account data before staging and creating an account',
    description:
      `${SUBSET} Checks every field and the contract's cross-checks, then the database's: the operations team, every ` +
      'tariff code against the product catalogue, and every meter point against the live accounts of the supplier. Nothing is stored.',
    request: { body: jsonRequest(account(), accountExample) },
    answers: {
      200: jsonResponse(
        'The validated account (decimals with at least two places, unknown names left out).',
        account(),
        { validated: { value: ex.accountRequest } },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});

export const stageAccountEndpoint = endpoint({
  method: 'post',
  path: '/v1/data-import/account-import-process/create-or-update/',
  operationId: 'createOrUpdateAccountImportProcess',
  errors: ERRORS.stageAccount,
  ledger: { subject: { supplier: 'import_supplier', account: ['external_account_number'] } },
  describe: () => ({
    tag: TAG,
    summary: 'Stage account data before creating an account',
    description:
      `${SUBSET} Validated by the same rules as validate-account, then stored: 201 the first time, 200 on each update, as ` +
      'often as wanted until the account is created. A Paused or Complete supplier stages nothing.',
    request: { body: jsonRequest(account(), accountExample) },
    answers: {
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
    },
    errorExamples: {
      400: { examples: { account_import_process_already_imported: { value: ex.accountAlreadyImported } } },
    },
  }),
});

export const processAccountEndpoint = endpoint({
  method: 'post',
  path: `/v1/data-import/${accountProcessJob.endpoint}/`,
  operationId: 'processAccountImportProcess',
  errors: ERRORS.processAccount,
  ledger: { subject: { supplier: 'import_supplier_code', account: ['external_account_number'], dryRun: ['dry_run'] } },
  job: accountProcessJob,
  loadShedding: 'queued-write',
  describe: () => ({
    tag: TAG,
    summary: 'Create the account from its staged data',
    description:
      'Queued: a worker creates the account from the staged data in one transaction with the answer, and the request waits ' +
      'for it as a transactions batch does (503 `result_pending` with `Location` when the wait runs out; Idempotency-Key ' +
      'as on every queued write). The staged data is validated again first. `dry_run` does everything, answers as the real ' +
      'run would (with `dry_run: true`) and keeps nothing. Two calls, or a call racing a v2 schedule, create one account.',
    request: { body: jsonRequest(ProcessRequestBody, { example: { value: ex.accountProcessRequest } }) },
    answers: {
      201: jsonResponse(
        'The account was created.',
        ProcessedAccount,
        { created: { value: ex.accountProcessed } },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});

export const scheduleAccountEndpoint = endpoint({
  method: 'post',
  path: '/v2/data-import/accounts/',
  operationId: 'scheduleAccountCreation',
  errors: ERRORS.scheduleAccount,
  ledger: {
    subject: {
      within: 'payload',
      supplier: 'import_supplier',
      account: ['external_account_number'],
      dryRun: ['task_params', 'is_dry_run'],
    },
    successFromWorker: true,
  },
  // Answers at once: its job waits for the schedule window, the request does not.
  job: accountScheduleJob,
  describe: () => ({
    tag: TAG,
    summary: 'Schedule the creation of an account',
    description:
      'Validates `payload` by the rules of validate-account (400), stages it, and schedules its creation for the window ' +
      '(default: now until 4 days from now); answers 201 at once, with the v2 status endpoint as `Location`. The job waits ' +
      "for the window's start; a window that ends before a worker starts it ends the process ERRORED with " +
      '`schedule_window_passed`. Operators can cancel a PENDING creation (`admin accounts cancel`).',
    request: {
      body: jsonRequest(ScheduleRequestBody, {
        example: { value: { payload: ex.accountRequest, task_params: { is_dry_run: false } } },
      }),
    },
    answers: {
      201: jsonResponse(
        'Scheduled.',
        ScheduledCreation,
        { scheduled: { value: ex.accountScheduled } },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});

export const validateAccountV2Endpoint = endpoint({
  method: 'post',
  path: '/v2/data-import/accounts/validate/',
  operationId: 'validateAccountV2',
  errors: ERRORS.validateAccount,
  describe: () => ({
    tag: TAG,
    summary: 'Validate the payload for creating an account',
    description:
      `The rules of validate-account on \`payload\`. As in the published contract, \`attr\` names fields of the account ` +
      '(`customers.0.landline`); only a missing or malformed `payload` is reported at `payload`. Nothing is stored.',
    request: {
      body: jsonRequest(named('ValidateAccount', V2ValidateRequest), {
        contract: { summary: 'An account to validate', value: { payload: ex.accountRequest } },
      }),
    },
    answers: {
      200: jsonResponse('The payload is valid.', z.object({}), { valid: { value: {} } }, REQUEST_ID_HEADER),
    },
  }),
});

/** Its path is the `Location` of a v2 schedule's answer. */
export const importStatusEndpoint = endpoint({
  method: 'get',
  path: '/v2/data-import/accounts/{import_supplier_code}/{external_identifier}/',
  operationId: 'getAccountImportStatus',
  errors: ERRORS.importStatus,
  describe: () => ({
    tag: TAG,
    summary: 'Return the status of an account import process',
    description:
      'The v2 status of the process, its platform account number once created, and its latest event and error.',
    request: {
      params: z.object({
        import_supplier_code: annotate(z.string().min(1), { example: ex.SUPPLIER }),
        external_identifier: annotate(z.string().min(1), { example: ex.EXTERNAL_ACCOUNT }),
      }),
    },
    answers: {
      200: jsonResponse(
        'The status of the account import.',
        ImportStatusResponse,
        { pending: { value: ex.importStatusPending }, errored: { value: ex.importStatusErrored } },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});

/** In the order the OpenAPI document lists them. */
export const ACCOUNT_IMPORT_ENDPOINTS: readonly EndpointDeclaration[] = [
  validateAccountEndpoint,
  stageAccountEndpoint,
  processAccountEndpoint,
  scheduleAccountEndpoint,
  validateAccountV2Endpoint,
  importStatusEndpoint,
];
