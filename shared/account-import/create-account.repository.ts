// The statements that create an account from its staged process, in the creation job's transaction
// (create-account.ts): the process lock, the account and its periods, meter points, statements and
// instructions, and the process's final status. Plain SQL on pg.
import type { Sql } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';
import { recordEvent } from './account-import.repository';

export interface LockedProcess {
  id: number;
  payload: unknown;
  platformAccountNumber: string | null;
  supplierStatus: SupplierStatus;
  documentRoot: string;
}

/**
 * The process row, locked until the transaction ends: creations of one account run one at a time. The
 * lock is taken first and the row read by a second statement, so a creation that waited for another
 * sees the account that one committed (a join in the locking statement would read it from before the wait).
 */
export async function lockProcess(
  tx: Sql,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<LockedProcess | undefined> {
  const locked = await tx.query<{ id: number }>(
    `SELECT id FROM account_import_processes
      WHERE supplier_code = $1 AND external_account_number = $2
        FOR UPDATE`,
    [supplierCode, externalAccountNumber],
  );
  const id = locked.rows[0]?.id;
  if (id === undefined) return undefined;
  const { rows } = await tx.query<{
    payload: unknown;
    platform_account_number: string | null;
    status: SupplierStatus;
    document_root: string;
  }>(
    `SELECT p.payload, a.platform_account_number, s.status::text AS status, s.document_root
       FROM account_import_processes p
       JOIN import_suppliers s ON s.code = p.supplier_code
       LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.id = $1`,
    [id],
  );
  const r = rows[0]!;
  return {
    id,
    payload: r.payload,
    platformAccountNumber: r.platform_account_number,
    supplierStatus: r.status,
    documentRoot: r.document_root,
  };
}

export async function isPlatformAccountNumberTaken(tx: Sql, n: string): Promise<boolean> {
  const { rows } = await tx.query('SELECT 1 FROM accounts WHERE platform_account_number = $1', [n]);
  return rows.length > 0;
}

export async function insertAccount(tx: Sql, processId: number, platformAccountNumber: string, now: Date) {
  const { rows } = await tx.query<{ id: number }>(
    'INSERT INTO accounts (process_id, platform_account_number, created_at) VALUES ($1, $2, $3) RETURNING id',
    [processId, platformAccountNumber, now],
  );
  return rows[0]!.id;
}

/**
 * Records the meter points as the account's; returns the identifiers it got (the others are taken).
 * In identifier order, so two creations that wait on each other's uncommitted meter points wait in one
 * order (no deadlock between creations that each hold one process).
 */
export async function claimMeterPoints(
  tx: Sql,
  supplierCode: string,
  accountId: number,
  points: { identifier: string; supplyType: string }[],
): Promise<Set<string>> {
  if (points.length === 0) return new Set();
  const { rows } = await tx.query<{ identifier: string }>(
    `INSERT INTO meter_points (supplier_code, identifier, supply_type, account_id)
     SELECT $1, i.identifier, i.supply_type, $2
       FROM unnest($3::text[], $4::text[]) AS i(identifier, supply_type)
      ORDER BY i.identifier
     ON CONFLICT (supplier_code, identifier) DO NOTHING
     RETURNING identifier`,
    [supplierCode, accountId, points.map((p) => p.identifier), points.map((p) => p.supplyType)],
  );
  return new Set(rows.map((r) => r.identifier));
}

export async function insertStatementPeriod(
  tx: Sql,
  accountId: number,
  startsOn: string,
  endsOn: string | null,
  isOpen: boolean,
): Promise<void> {
  await tx.query(
    'INSERT INTO statement_periods (account_id, starts_on, ends_on, is_open) VALUES ($1, $2::date, $3::date, $4)',
    [accountId, startsOn, endsOn, isOpen],
  );
}

export interface NewStatementRow {
  statement_id: string;
  bill_period_from_date: string;
  bill_period_to_date: string;
  issued_date?: string | null;
  number?: string;
  gross_amount?: number | null;
  statement_path?: string;
  storage_location: string | null;
}

export async function insertStatements(tx: Sql, accountId: number, statements: NewStatementRow[]): Promise<void> {
  if (statements.length === 0) return;
  await tx.query(
    `INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date,
                                        issued_date, number, gross_amount, statement_path, storage_location)
     SELECT $1, s.statement_id, s.bill_period_from_date, s.bill_period_to_date, s.issued_date, s.number,
            s.gross_amount, s.statement_path, s.storage_location
       FROM jsonb_to_recordset($2::jsonb) AS s(statement_id text, bill_period_from_date date,
            bill_period_to_date date, issued_date date, number text, gross_amount bigint,
            statement_path text, storage_location text)`,
    [accountId, JSON.stringify(statements)],
  );
}

export interface NewInstruction {
  vendor: string;
  reference: string;
  type: string;
  vendorDetails: Record<string, unknown>;
  isActive: boolean;
  validFrom: string | null;
  useForScheduledPayments: boolean | null;
}

export async function insertPaymentInstructions(tx: Sql, accountId: number, list: NewInstruction[]): Promise<void> {
  if (list.length === 0) return;
  await tx.query(
    `INSERT INTO payment_instructions (account_id, vendor, reference, type, vendor_details, is_active, valid_from,
                                       use_for_scheduled_payments)
     SELECT $1, i.vendor, i.reference, i.type, i."vendorDetails", i."isActive", i."validFrom", i."useForScheduledPayments"
       FROM jsonb_to_recordset($2::jsonb) AS i(vendor text, reference text, type text, "vendorDetails" jsonb,
            "isActive" boolean, "validFrom" date, "useForScheduledPayments" boolean)`,
    [accountId, JSON.stringify(list)],
  );
}

/** The process has its account: IMPORTED for the v1 reads, PROCESSED for v2. */
export async function markProcessed(tx: Sql, processId: number, team: string | null, now: Date): Promise<void> {
  await tx.query(
    `UPDATE account_import_processes
        SET state = 'IMPORTED', status = 'PROCESSED', modified_at = $2, latest_error = NULL, is_dry_run = false,
            operations_team_name = $3
      WHERE id = $1`,
    [processId, now, team],
  );
}

/** A refused attempt: a real one leaves the process FAILED (UNKNOWN on v1) and ERRORED; a dry run only DRY_RUN_ERRORED. */
export async function markRefused(
  tx: Sql,
  processId: number,
  dryRun: boolean,
  error: { code: string; detail: string; domain: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `UPDATE account_import_processes
        SET state = CASE WHEN $2 THEN (CASE WHEN state = 'IN_PROGRESS' THEN 'STAGED' ELSE state END)
                         ELSE 'FAILED' END::"ImportState",
            status = (CASE WHEN $2 THEN 'DRY_RUN_ERRORED' ELSE 'ERRORED' END)::"ImportStatus",
            is_dry_run = $2, latest_error = $3::jsonb, modified_at = $4
      WHERE id = $1`,
    [processId, dryRun, JSON.stringify(error), now],
  );
}

export async function markDryRunSucceeded(tx: Sql, processId: number, now: Date): Promise<void> {
  await tx.query(
    `UPDATE account_import_processes
        SET state = CASE WHEN state = 'IN_PROGRESS' THEN 'STAGED'::"ImportState" ELSE state END,
            status = 'DRY_RUN_SUCCEEDED', is_dry_run = true, latest_error = NULL, modified_at = $2
      WHERE id = $1`,
    [processId, now],
  );
}

/**
 * A creation job has started on the process: IN_PROGRESS on both the v1 status and v2, with its event.
 * Committed on its own before the creation's transaction, so the status endpoints show it while the
 * job runs. A process that has its account, or is not known, is left alone (false).
 */
export async function markStarted(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  dryRun: boolean,
  now: Date,
): Promise<boolean> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE account_import_processes p
        SET state = 'IN_PROGRESS', status = 'IN_PROGRESS', is_dry_run = $3, modified_at = $4
      WHERE p.supplier_code = $1 AND p.external_account_number = $2
        AND p.status <> 'CANCELLED'
        AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id)
     RETURNING p.id`,
    [supplierCode, externalAccountNumber, dryRun, now],
  );
  const id = rows[0]?.id;
  if (id === undefined) return false;
  await recordEvent(db, id, 'EVENT_ACCOUNT_IMPORT_PROCESS_STARTED', now, dryRun ? { dry_run: true } : null);
  return true;
}
