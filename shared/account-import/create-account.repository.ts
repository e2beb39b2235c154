// The statements that create an account from its staged process, in the creation job's transaction
// (create-account.ts): the process lock, the account and its periods, meter points, statements and
// instructions, and the process's final status. Plain SQL on pg.
import type { Sql } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';
import type { CreatePaymentInstruction } from '../payment-instructions/payment-instruction.schemas';

export interface LockedProcess {
  id: number;
  /** The v2 status (CANCELLED: an operator cancelled the creation). */
  status: string;
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
  locks: { wait: boolean } = { wait: true },
): Promise<LockedProcess | undefined> {
  const locked = await tx.query<{ id: number; status: string }>(
    `SELECT id, status::text AS status FROM account_import_processes
      WHERE supplier_code = $1 AND external_account_number = $2
        FOR UPDATE${locks.wait ? '' : ' NOWAIT'}`,
    [supplierCode, externalAccountNumber],
  );
  const lockedRow = locked.rows[0];
  if (lockedRow === undefined) return undefined;
  const { id, status } = lockedRow;
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
    status,
    payload: r.payload,
    platformAccountNumber: r.platform_account_number,
    supplierStatus: r.status,
    documentRoot: r.document_root,
  };
}

/**
 * Inserts the account under `platformAccountNumber` and claims its meter points, in one statement.
 * Undefined when the number is taken already (nothing inserted: draw another); else the account's id and
 * the identifiers it got (the others are another live account's of the supplier, decided by the primary key).
 */
export async function insertAccountWithMeterPoints(
  tx: Sql,
  account: { processId: number; platformAccountNumber: string; supplierCode: string; now: Date },
  points: { identifier: string; supplyType: string }[],
): Promise<{ accountId: number; claimed: Set<string> } | undefined> {
  const { rows } = await tx.query<{ id: number; claimed: string[] }>(
    `WITH account AS (
       INSERT INTO accounts (process_id, platform_account_number, created_at)
       SELECT $1, $2, $3
        WHERE NOT EXISTS (SELECT 1 FROM accounts WHERE platform_account_number = $2)
       RETURNING id
     ), claimed AS (
       INSERT INTO meter_points (supplier_code, identifier, supply_type, account_id)
       SELECT $4, i.identifier, i.supply_type, account.id
         FROM account CROSS JOIN unnest($5::text[], $6::text[]) AS i(identifier, supply_type)
        ORDER BY i.identifier
       ON CONFLICT (supplier_code, identifier) DO NOTHING
       RETURNING identifier
     )
     SELECT account.id, ARRAY(SELECT identifier FROM claimed) AS claimed FROM account`,
    [
      account.processId,
      account.platformAccountNumber,
      account.now,
      account.supplierCode,
      points.map((p) => p.identifier),
      points.map((p) => p.supplyType),
    ],
  );
  const r = rows[0];
  return r === undefined ? undefined : { accountId: r.id, claimed: new Set(r.claimed) };
}

/** The account's statement periods (a closed one, when there is one, and the open one), in one statement. */
export async function insertStatementPeriods(
  tx: Sql,
  accountId: number,
  periods: { startsOn: string; endsOn: string | null; isOpen: boolean }[],
): Promise<void> {
  await tx.query(
    `INSERT INTO statement_periods (account_id, starts_on, ends_on, is_open)
     SELECT $1, p.starts_on, p.ends_on, p.is_open FROM unnest($2::date[], $3::date[], $4::boolean[]) AS p(starts_on, ends_on, is_open)`,
    [accountId, periods.map((p) => p.startsOn), periods.map((p) => p.endsOn), periods.map((p) => p.isOpen)],
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

/** The process has its account: IMPORTED for the v1 reads, PROCESSED for v2, with its event (one statement). */
export async function markProcessed(
  tx: Sql,
  processId: number,
  processed: { team: string | null; event: string; platformAccountNumber: string },
  now: Date,
): Promise<void> {
  await tx.query(
    `WITH process AS (
       UPDATE account_import_processes
          SET state = 'IMPORTED', status = 'PROCESSED', modified_at = $2, latest_error = NULL, is_dry_run = false,
              operations_team_name = $3
        WHERE id = $1
       RETURNING id
     )
     INSERT INTO account_import_process_events (process_id, event, occurred_at, data)
     SELECT id, $4, $2, jsonb_build_object('platform_account_number', $5::text) FROM process`,
    [processId, now, processed.team, processed.event, processed.platformAccountNumber],
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

/** A STRIPE instruction of a staged account, for the job to verify with the vendor before creating. */
export interface StagedStripeInstruction {
  /** Its index in the staged account's `payment_instructions`. */
  index: number;
  type: CreatePaymentInstruction['type'];
  reference: string;
}

/**
 * A creation job has started on the process: IN_PROGRESS on both the v1 status and v2, with its event,
 * in one statement committed on its own before the creation's transaction, so the status endpoints show
 * it while the job runs. Answers the staged account's STRIPE instructions (read from the staged payload,
 * validated when staged). A process that has its account, is cancelled or is not known is left alone
 * (undefined): its creation is refused whatever its instructions.
 */
export async function markStarted(
  db: Sql,
  supplierCode: string,
  externalAccountNumber: string,
  dryRun: boolean,
  now: Date,
): Promise<{ stripeInstructions: StagedStripeInstruction[] } | undefined> {
  const { rows } = await db.query<{ id: number; stripe: StagedStripeInstruction[] }>(
    `WITH started AS (
       UPDATE account_import_processes p
          SET state = 'IN_PROGRESS', status = 'IN_PROGRESS', is_dry_run = $3, modified_at = $4
        WHERE p.supplier_code = $1 AND p.external_account_number = $2
          AND p.status <> 'CANCELLED'
          AND NOT EXISTS (SELECT 1 FROM accounts a WHERE a.process_id = p.id)
       RETURNING p.id, p.payload
     ), event AS (
       INSERT INTO account_import_process_events (process_id, event, occurred_at, data)
       SELECT id, 'EVENT_ACCOUNT_IMPORT_PROCESS_STARTED', $4, $5::jsonb FROM started
     )
     SELECT s.id,
            COALESCE((SELECT json_agg(json_build_object('index', i.ord - 1, 'type', i.value->>'type',
                                                        'reference', i.value->>'reference') ORDER BY i.ord)
                        FROM jsonb_array_elements(CASE jsonb_typeof(s.payload->'payment_instructions')
                                                    WHEN 'array' THEN s.payload->'payment_instructions'
                                                    ELSE '[]'::jsonb END) WITH ORDINALITY AS i(value, ord)
                       WHERE i.value->>'vendor' = 'STRIPE'), '[]'::json) AS stripe
       FROM started s`,
    [supplierCode, externalAccountNumber, dryRun, now, dryRun ? JSON.stringify({ dry_run: true }) : null],
  );
  const r = rows[0];
  return r === undefined ? undefined : { stripeInstructions: r.stripe };
}
