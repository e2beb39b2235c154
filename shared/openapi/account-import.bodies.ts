// The bodies of the account-import endpoints as the OpenAPI document names them (the endpoints:
// shared/account-import/account-import.endpoint.ts).
import { z } from 'zod';
import { named } from './schema-registry';

export const StagedProcess = named(
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

export const ImportStatusResponse = named(
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

export const ProcessRequestBody = named(
  'ProcessAccountImportProcess',
  z.object({
    import_supplier_code: z.string().max(64),
    external_account_number: z.string().max(128),
    operations_team_name: z.string().max(255).nullable().optional(),
    dry_run: z.boolean().optional(),
  }),
);

export const ProcessedAccount = named(
  'ProcessAccountImportProcessCreation',
  z.object({
    external_account_number: z.string(),
    platform_account_number: z.string().optional().describe('Absent on a dry run: creation would draw its own.'),
    dry_run: z.literal(true).optional().describe('Present on a dry run: nothing was kept.'),
  }),
);

export const ScheduleRequestBody = named(
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

export const ScheduledCreation = named(
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

export const SUBSET =
  "The account is a named subset of the published contract's `EnergyAccount` (docs/account-import.md): a field the contract " +
  'names that this service does not support is refused with `field_not_supported` at its attr, never dropped; names the ' +
  'contract does not know are ignored.';
