// GET /v1/data-import/reconciliation/{import_supplier_code}/: the stored figures per imported account,
// for comparing a migration's input files with what arrived (the migration client's `reconcile` does).
// The handler is api/routes/reconciliation.routes.ts.
import { z } from 'zod';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { SupplierCodeParam } from '../openapi/operation-parts';
import { REQUEST_ID_HEADER } from '../openapi/responses';
import { named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { ACCOUNT_COLUMNS, FIGURES, SERVICE_FIGURES, type Figure } from './reconciliation.figures';

/** The compared figures, then what the service added itself (reported, not compared). */
const COLUMNS = [...FIGURES, ...SERVICE_FIGURES];

const figureSchema = (figure: Figure) => {
  if (figure.kind === 'count') return z.int().min(0);
  if (figure.kind === 'flag') return z.boolean();
  return z
    .string()
    .regex(/^-?\d+(\.\d+)?$/)
    .describe('An exact decimal as a string.');
};

const ReconciliationRow = named(
  'ReconciliationRow',
  z.object({
    external_account_number: z.string(),
    platform_account_number: z.string(),
    ...Object.fromEntries(COLUMNS.map((f) => [f.name, figureSchema(f)])),
  }),
);

const exampleRow: Record<string, string | number | boolean> = {
  external_account_number: ex.EXTERNAL_ACCOUNT,
  platform_account_number: 'A-C90DC431',
  ...Object.fromEntries(COLUMNS.map((f) => [f.name, f.kind === 'count' ? 0 : f.kind === 'flag' ? false : '0.00'])),
  notes_count: 2,
  transactions_count: 3,
  transactions_charge_count: 2,
  transactions_charge_amount: '120.50',
  transactions_payment_count: 1,
  transactions_payment_amount: '80.00',
  statements_count: 1,
  statements_gross_amount: '12050',
  payment_instruction_active: true,
  opening_balance: '30.00',
};

const csvExample =
  [...ACCOUNT_COLUMNS, ...COLUMNS.map((f) => f.name)].join(',') +
  '\r\n' +
  [
    exampleRow.external_account_number,
    exampleRow.platform_account_number,
    ...COLUMNS.map((f) => String(exampleRow[f.name])),
  ].join(',') +
  '\r\n';

export const reconciliationEndpoint = endpoint({
  method: 'get',
  path: '/v1/data-import/reconciliation/{import_supplier_code}/',
  operationId: 'getReconciliation',
  errors: ERRORS.processList,
  loadShedding: 'stream',
  describe: () => ({
    tag: 'Migration progress',
    summary: 'Figures per imported account, to reconcile a migration against its input files',
    description:
      'One row per imported account of the supplier, ordered by `external_account_number`, streamed (no paging): notes count, ' +
      'transactions count and amount sum per type, statements count and gross amount sum (minor units), and whether an active ' +
      'payment instruction exists, and the opening balance (the imported `transfer_balance`). Sums are exact decimals as strings. NDJSON by default; CSV (with a header row) with ' +
      '`Accept: text/csv`. Nothing (or only the CSV header) when the supplier has no imported accounts.',
    request: { params: z.object({ import_supplier_code: SupplierCodeParam }) },
    answers: {
      200: {
        description: 'The figures, one account per line.',
        headers: REQUEST_ID_HEADER,
        content: {
          'application/x-ndjson': { schema: ReconciliationRow, examples: { account: { value: exampleRow } } },
          'text/csv': { schema: z.string(), examples: { account: { value: csvExample } } },
        },
      },
    },
  }),
});
