// Account import processes and accounts, always read through the caller's organisation: a supplier
// the organisation is not assigned to behaves exactly as one that does not exist. Plain SQL on pg:
// every write and every status request starts here (see shared/platform/db.ts for the cost of Prisma).
import type { Pool } from 'pg';
import { openBoundedCursor, type OpenCursor } from '../platform/cursor';
import type { Prepared, Sql } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';

export interface ProcessStatusRow {
  state: 'STAGED' | 'IN_PROGRESS' | 'IMPORTED' | 'FAILED';
  platform_account_number: string | null;
}

const FIND_PROCESS_STATUS: Prepared = {
  name: 'accounts.find-process-status',
  text: `SELECT p.state::text AS state, a.platform_account_number
           FROM account_import_processes p
           JOIN organisation_suppliers os
             ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           LEFT JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3`,
};

export async function findProcessStatus(
  db: Sql,
  organisationId: number,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<ProcessStatusRow | undefined> {
  const { rows } = await db.query<ProcessStatusRow>(FIND_PROCESS_STATUS, [
    organisationId,
    supplierCode,
    externalAccountNumber,
  ]);
  return rows[0];
}

export async function isSupplierVisible(db: Sql, organisationId: number, supplierCode: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM organisation_suppliers WHERE organisation_id = $1 AND supplier_code = $2',
    [organisationId, supplierCode],
  );
  return rows.length > 0;
}

export interface ImportedAccount {
  accountId: number;
  platformAccountNumber: string;
  supplierCode: string;
  supplierStatus: SupplierStatus;
  documentRoot: string;
}

const FIND_IMPORTED_ACCOUNT: Prepared = {
  name: 'accounts.find-imported-account',
  text: `SELECT a.id AS account_id, a.platform_account_number, s.status::text AS status, s.document_root
           FROM account_import_processes p
           JOIN organisation_suppliers os
             ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           JOIN import_suppliers s ON s.code = p.supplier_code
           JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3
            AND p.state = 'IMPORTED'`,
};

/**
 * The account a write goes to, for writes that look it up in their own statement (notes, statements):
 * `$1` the organisation, `$2` the supplier, `$3` the external number; its id, the supplier's status
 * (the caller checks Ongoing) and document root. The same joins as FIND_IMPORTED_ACCOUNT.
 */
export const WRITABLE_ACCOUNT_SQL = `SELECT a.id, s.status::text AS status, s.document_root
           FROM account_import_processes p
           JOIN organisation_suppliers os ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           JOIN import_suppliers s ON s.code = p.supplier_code
           JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3 AND p.state = 'IMPORTED'`;

/** The imported account behind (supplier, external number), or undefined when it is not imported or not visible. */
export async function findImportedAccount(
  db: Sql,
  organisationId: number,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<ImportedAccount | undefined> {
  const { rows } = await db.query<{
    account_id: number;
    platform_account_number: string;
    status: SupplierStatus;
    document_root: string;
  }>(FIND_IMPORTED_ACCOUNT, [organisationId, supplierCode, externalAccountNumber]);
  const row = rows[0];
  return (
    row && {
      accountId: row.account_id,
      platformAccountNumber: row.platform_account_number,
      supplierCode,
      supplierStatus: row.status,
      documentRoot: row.document_root,
    }
  );
}

export type ProcessListFilter = 'all' | 'pending' | 'imported';

const FILTER_SQL: Record<ProcessListFilter, string> = {
  all: '',
  pending: 'AND a.id IS NULL',
  imported: 'AND a.id IS NOT NULL',
};

export interface ProcessListRow {
  external_account_number: string;
  platform_account_number: string | null;
  account_created_at: string | null;
}

/**
 * Streams the supplier's processes in external-account-number order from a bounded server-side cursor
 * (shared/platform/cursor.ts); `timeoutMs` bounds each fetch and the whole stream.
 */
export function streamProcessList(
  pool: Pool,
  supplierCode: string,
  filter: ProcessListFilter,
  timeoutMs: number,
): Promise<OpenCursor> {
  return openBoundedCursor(
    pool,
    `SELECT p.external_account_number,
            a.platform_account_number,
            to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS account_created_at
       FROM account_import_processes p
       LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.supplier_code = $1 ${FILTER_SQL[filter]}
      ORDER BY p.external_account_number`,
    [supplierCode],
    { batchSize: 2000, timeoutMs, what: 'list' },
  );
}
