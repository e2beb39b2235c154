// The published contract's account-import endpoints (../shared/reference/raw, EDF GB variant: UK meter
// points, as this service takes) as a test fixture, adapted by the deliberate differences listed here
// (docs/account-import.md, "Differences from the published contract", says the same to readers).
import { loadContract, renameKey, type ContractValidator } from './published-contract';

const ACCOUNT_CONTRACT_FILE = 'edf-energy-kraken-data-import-openapi.yml';

export const ACCOUNT_ENDPOINTS = {
  validateAccount: { method: 'post', path: '/v1/data-import/validate-account/' },
  createOrUpdate: { method: 'post', path: '/v1/data-import/account-import-process/create-or-update/' },
  process: { method: 'post', path: '/v1/data-import/account-import-process/process/' },
  schedule: { method: 'post', path: '/v2/data-import/accounts/' },
  validateV2: { method: 'post', path: '/v2/data-import/accounts/validate/' },
  status: { method: 'get', path: '/v2/data-import/accounts/{import_supplier_code}/{external_identifier}/' },
} as const;
export type AccountEndpoint = keyof typeof ACCOUNT_ENDPOINTS;

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed contract */
type Json = any;

export const ACCOUNT_DIFFERENCES: { what: string; why: string; adapt: (doc: Json) => void }[] = [
  {
    what: '`kraken_account_number` / `kraken_identifier` are `platform_account_number` / `platform_identifier`',
    why: 'The spec renames every `kraken_*` field (as on the eight seed endpoints).',
    adapt: (doc) => {
      renameKey(doc, 'kraken_account_number', 'platform_account_number');
      renameKey(doc, 'kraken_identifier', 'platform_identifier');
    },
  },
  {
    what: "`import_supplier` / `import_supplier_code` is any supplier the platform team set up, not the contract's list",
    why: "The contract's enum is one vendor's supplier codes; suppliers here are configuration (`admin apply`).",
    adapt: (doc) =>
      eachObject(doc.components.schemas, (node) => {
        for (const name of ['import_supplier', 'import_supplier_code']) delete node.properties?.[name]?.enum;
      }),
  },
  {
    what: "A gas meter's `gas_number_of_digits` may be left out (taken when sent)",
    why: 'Nothing this service stores depends on it; the issue lists meters by serial number, dates and registers.',
    adapt: (doc) =>
      eachObject(doc.components.schemas, (node) => {
        if (Array.isArray(node.required))
          node.required = node.required.filter((r: string) => r !== 'gas_number_of_digits');
      }),
  },
  {
    what: "`task_params` of a v2 schedule may be left out (the window defaults to now until 4 days ahead); a window is refused with `invalid_schedule_window`, not the contract's per-case codes",
    why: 'The issue makes every task parameter optional; one code covers a window that ends before it starts or in the past.',
    adapt: (doc) => {
      const schema = doc.components.schemas.ScheduleAccountCreation;
      schema.required = schema.required.filter((r: string) => r !== 'task_params');
    },
  },
  {
    what: "A process whose account the platform team imported (`admin apply`) has no event: its v2 status's `latest_event` is null",
    why: 'Events exist from the account-import endpoints on; accounts made before them have none.',
    adapt: (doc) => (doc.components.schemas.ImportStatusResponse.properties.latest_event.nullable = true),
  },
  {
    what: "Every 400 (v1 included, and the process call's `account_import_process_already_imported`) is the standard `{detail, code, errors}` body, with `external_account_number` and `platform_account_number` added for an imported account",
    why: "The spec's Errors section defines one validation body; the contract's v1 nested dictionaries are not checked.",
    adapt: () => undefined,
  },
  {
    what: 'A dry-run process call answers 201 with the number the account would get and `dry_run: true`, not 400 "Rolled back due to Dry Run"',
    why: 'The issue: a dry run answers as the real run would and keeps nothing.',
    adapt: () => undefined,
  },
  {
    what: 'A v2 schedule answers 201 with `{import_supplier_code, external_identifier, status, request_id, schedule_window_start, schedule_window_end, is_dry_run}` (the contract documents no body)',
    why: 'Additive: the client follows the creation by its status endpoint and its request id.',
    adapt: () => undefined,
  },
];

function eachObject(node: Json, visit: (node: Json) => void): void {
  if (node === null || typeof node !== 'object') return;
  if (!Array.isArray(node)) visit(node);
  Object.values(node).forEach((child) => eachObject(child, visit));
}

export const loadAccountContract = (): ContractValidator<AccountEndpoint> =>
  loadContract(ACCOUNT_CONTRACT_FILE, ACCOUNT_ENDPOINTS, ACCOUNT_DIFFERENCES);
