// A client's run seen from the service: GET /v1/data-import/runs/{run_id}/ (run.use-cases.ts); the
// handler is api/routes/runs.routes.ts.
import { z } from 'zod';
import { ERRORS } from '../openapi/error-codes';
import { jsonResponse, REQUEST_ID_HEADER } from '../openapi/responses';
import { annotate, named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { OUTCOMES } from '../runs/ledger-entries';
import { RUN_ACCOUNTS_PAGE } from './run.use-cases';
import { RunProgress } from './run-declaration.endpoint';

const RunRequest = named(
  'RunRequest',
  z.object({
    request_id: z.string().describe('The `X-Request-Id` of a synchronous write; the `request_id` of a queued one.'),
    endpoint: z.string().describe('The write, as its path under `/v1/data-import/` (`v2/accounts` for a v2 schedule).'),
    http_status: z.number().int(),
    recorded_at: z.string().describe('When the answer was recorded (UTC).'),
  }),
);

const itemCounts = Object.fromEntries(OUTCOMES.map((o) => [o, z.number().int()])) as Record<
  (typeof OUTCOMES)[number],
  z.ZodNumber
>;

const RunAccount = named(
  'RunAccount',
  z.object({
    import_supplier: z.string(),
    external_account_number: z.string(),
    requests: z.number().int(),
    ...itemCounts,
  }),
);

const RunSummary = named(
  'RunSummary',
  z.object({
    run_id: z.string(),
    requests: z.number().int().describe('Write requests of the run (a retried 5xx counts once per attempt).'),
    first_request: RunRequest,
    last_request: RunRequest,
    items: annotate(z.object(itemCounts), {
      description:
        "The run's items by outcome: `written`; `skipped` (already stored: `*_ALREADY_EXISTS`); `dry_run` (checked, " +
        'nothing kept); `refused` (the item itself failed a check); `not_written` (sound, but its request was refused ' +
        'for other items: all or nothing); `failed` (a 5xx: nothing was written, retry as it is).',
    }),
    by_code: z
      .array(
        z.object({
          outcome: z.enum(OUTCOMES),
          code: z.string().describe("A refusal's field-level code (`product_code_does_not_exist`) or an item status."),
          items: z.number().int(),
          entries: z.number().int().describe('Errors with this code (an item may have several).'),
        }),
      )
      .describe('Counts by outcome and code.'),
    progress: RunProgress,
    accounts: z.object({
      count: z.number().int().describe('Accounts the run named (by import supplier and external account number).'),
      results: z.array(RunAccount).describe(`At most ${RUN_ACCOUNTS_PAGE}, by supplier and account number.`),
      next_cursor: z
        .string()
        .nullable()
        .describe('Pass as `accounts_after` for the next page of accounts; null on the last page.'),
    }),
  }),
);

const request = (id: string, endpoint: string, status: number, at: string) => ({
  request_id: id,
  endpoint,
  http_status: status,
  recorded_at: at,
});
const runExample = {
  run_id: '2026-11-26T08-00-00Z-transactions',
  requests: 2,
  first_request: request(
    '6f1c2a9e-0b7d-4c1e-9a53-2f8d1e4b7c60',
    'transactions/create',
    400,
    '2026-11-26T08:00:01.250Z',
  ),
  last_request: request('0d4e8b1f-5a2c-4e7d-b6f3-9c1a2e5d8f70', 'transactions/create', 201, '2026-11-26T08:00:02.900Z'),
  items: { written: 3, skipped: 0, dry_run: 0, refused: 1, not_written: 3, failed: 0 },
  by_code: [
    { outcome: 'refused', code: 'product_code_does_not_exist', items: 1, entries: 1 },
    { outcome: 'written', code: 'TRANSACTION_ADDED_TO_ACCOUNT', items: 3, entries: 1 },
  ],
  progress: {
    declared: {
      kind: 'transactions',
      items: 8,
      files: [{ name: 'transactions.ndjson', lines: 8 }],
      declared_at: '2026-11-26T08:00:00.900Z',
    },
    items_done: 4,
    percent: 50,
    rate_per_second: 2,
    eta_seconds: 2,
  },
  accounts: {
    count: 1,
    results: [
      {
        import_supplier: 'ACME_ENERGY',
        external_account_number: 'EXT-1',
        requests: 2,
        written: 3,
        skipped: 0,
        dry_run: 0,
        refused: 1,
        not_written: 3,
        failed: 0,
      },
    ],
    next_cursor: null,
  },
};

const RunQuery = z.object({ accounts_after: z.string().max(1024).optional() });

export const runEndpoint = endpoint({
  method: 'get',
  path: '/v1/data-import/runs/{run_id}/',
  operationId: 'getRun',
  errors: ERRORS.runSummary,
  query: Object.keys(RunQuery.shape),
  describe: () => ({
    tag: 'Post account import',
    summary: 'What a run did',
    description:
      'Every write that carried this `Data-Import-Run-Id` header, summed up from the run ledger: requests, the first and ' +
      'the last, items by outcome and by code, and the accounts the run named. Only the caller’s organisation’s writes.',
    request: {
      params: z.object({ run_id: annotate(z.string().min(1).max(64), { description: 'The client’s run id.' }) }),
      query: RunQuery,
    },
    answers: { 200: jsonResponse('The run.', RunSummary, { run: { value: runExample } }, REQUEST_ID_HEADER) },
  }),
});
