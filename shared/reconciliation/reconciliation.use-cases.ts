// GET reconciliation/<supplier>/: what the service holds per imported account, in the figures the
// migration client compares its input files against (reconciliation.figures.ts).
import Decimal from 'decimal.js';
import { isSupplierVisible } from '../accounts/account.use-cases';
import type { Database } from '../platform/db';
import { supplierNotFound } from '../platform/errors';
import { formatMoney } from '../platform/fields';
import { isStorableText } from '../platform/validation';
import { csvCell } from '../staff/csv';
import { ACCOUNT_COLUMNS, FIGURES, SERVICE_FIGURES, type ReconciliationRow } from './reconciliation.figures';
import { streamReconciliation, type ReconciliationDbRow } from './reconciliation.repository';

export async function openReconciliation(
  db: Database,
  organisationId: number,
  supplierCode: string,
  timeoutMs: number,
) {
  if (!isStorableText(supplierCode) || !(await isSupplierVisible(db.pool, organisationId, supplierCode))) {
    throw supplierNotFound();
  }
  return streamReconciliation(db.pool, supplierCode, timeoutMs);
}

/** Amounts as the write endpoints echo money: at least two places, every stored digit that matters. */
export function toReconciliationRow(row: ReconciliationDbRow): ReconciliationRow {
  const out: ReconciliationRow = {
    external_account_number: String(row.external_account_number),
    platform_account_number: String(row.platform_account_number),
  };
  for (const figure of FIGURES) {
    const value = row[figure.name];
    if (figure.kind === 'amount') {
      const d = new Decimal(String(value));
      // Statement gross amounts are integers of minor units: no decimal places to add.
      out[figure.name] = figure.name === 'statements_gross_amount' ? d.toFixed(0) : formatMoney(d);
    } else {
      out[figure.name] = figure.kind === 'flag' ? value === true : Number(value);
    }
  }
  for (const figure of SERVICE_FIGURES) out[figure.name] = Number(row[figure.name]);
  return out;
}

const COLUMNS = [...FIGURES, ...SERVICE_FIGURES];

export const RECONCILIATION_CSV_HEADER = [...ACCOUNT_COLUMNS, ...COLUMNS.map((f) => f.name)].join(',') + '\r\n';

/**
 * One CSV record. Account numbers come from callers, so they get the spreadsheet-safe cell; figures
 * are digits the service formatted (a negative amount must stay a number, not gain a quote).
 */
export function reconciliationCsvRecord(row: ReconciliationRow): string {
  const figures = COLUMNS.map((f) => String(row[f.name]));
  return [csvCell(row.external_account_number), csvCell(row.platform_account_number), ...figures].join(',') + '\r\n';
}
