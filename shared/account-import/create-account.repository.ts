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
  /** The creation job (its request) holding the process, when IN_PROGRESS. */
  heldBy: string | null;
  /** The v2 schedule (its request) that is the process's current one. */
  scheduledRequestId: string | null;
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
  const locked = await tx.query<{ id: number; status: string; held_by: string | null; scheduled: string | null }>(
    `SELECT id, status::text AS status, held_by, scheduled_request_id AS scheduled FROM account_import_processes
      WHERE supplier_code = $1 AND external_account_number = $2
        FOR UPDATE${locks.wait ? '' : ' NOWAIT'}`,
    [supplierCode, externalAccountNumber],
  );
  const lockedRow = locked.rows[0];
  if (lockedRow === undefined) return undefined;
  const { id, status, held_by: heldBy, scheduled: scheduledRequestId } = lockedRow;
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
    heldBy,
    scheduledRequestId,
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

/** A statement period of a new account (its closed one, when it has one, and its open one). */
export interface NewStatementPeriod {
  startsOn: string;
  endsOn: string | null;
  isOpen: boolean;
}

/** The statement periods of new accounts, in one statement. */
export async function insertStatementPeriods(
  tx: Sql,
  accounts: { accountId: number; periods: NewStatementPeriod[] }[],
): Promise<void> {
  const rows = accounts.flatMap((a) => a.periods.map((p) => ({ ...p, accountId: a.accountId })));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO statement_periods (account_id, starts_on, ends_on, is_open)
     SELECT p.account_id, p.starts_on, p.ends_on, p.is_open
       FROM unnest($1::int[], $2::date[], $3::date[], $4::boolean[]) AS p(account_id, starts_on, ends_on, is_open)`,
    [rows.map((p) => p.accountId), rows.map((p) => p.startsOn), rows.map((p) => p.endsOn), rows.map((p) => p.isOpen)],
  );
}

/**
 * Deletes an account this transaction has just inserted, with the meter points it claimed (a creation
 * refused after its insert: as if it had never been inserted; no other row refers to it yet).
 */
export async function deleteNewAccount(tx: Sql, accountId: number): Promise<void> {
  await tx.query(
    `WITH points AS (DELETE FROM meter_points WHERE account_id = $1)
     DELETE FROM accounts WHERE id = $1`,
    [accountId],
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

/** The historical statements of new accounts, in one statement. */
export async function insertStatements(
  tx: Sql,
  accounts: { accountId: number; statements: NewStatementRow[] }[],
): Promise<void> {
  const rows = accounts.flatMap((a) => a.statements.map((st) => ({ ...st, account_id: a.accountId })));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date,
                                        issued_date, number, gross_amount, statement_path, storage_location)
     SELECT s.account_id, s.statement_id, s.bill_period_from_date, s.bill_period_to_date, s.issued_date, s.number,
            s.gross_amount, s.statement_path, s.storage_location
       FROM jsonb_to_recordset($1::jsonb) AS s(account_id int, statement_id text, bill_period_from_date date,
            bill_period_to_date date, issued_date date, number text, gross_amount bigint, statement_path text,
            storage_location text)`,
    [JSON.stringify(rows)],
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

/** The payment instructions of new accounts, in one statement. */
export async function insertPaymentInstructions(
  tx: Sql,
  accounts: { accountId: number; instructions: NewInstruction[] }[],
): Promise<void> {
  const rows = accounts.flatMap((a) => a.instructions.map((i) => ({ ...i, accountId: a.accountId })));
  if (rows.length === 0) return;
  await tx.query(
    `INSERT INTO payment_instructions (account_id, vendor, reference, type, vendor_details, is_active, valid_from,
                                       use_for_scheduled_payments)
     SELECT i."accountId", i.vendor, i.reference, i.type, i."vendorDetails", i."isActive", i."validFrom",
            i."useForScheduledPayments"
       FROM jsonb_to_recordset($1::jsonb) AS i("accountId" int, vendor text, reference text, type text,
            "vendorDetails" jsonb, "isActive" boolean, "validFrom" date, "useForScheduledPayments" boolean)`,
    [JSON.stringify(rows)],
  );
}

/** A STRIPE instruction of a staged account, for the job to verify with the vendor before creating. */
export interface StagedStripeInstruction {
  /** Its index in the staged account's `payment_instructions`. */
  index: number;
  type: CreatePaymentInstruction['type'];
  reference: string;
}

/** The STRIPE instructions of a process's staged account (validated when staged), for the job to verify. */
async function stagedStripeInstructions(db: Sql, processId: number): Promise<StagedStripeInstruction[]> {
  const { rows } = await db.query<{ stripe: StagedStripeInstruction[] }>(
    `SELECT COALESCE((SELECT json_agg(json_build_object('index', i.ord - 1, 'type', i.value->>'type',
                                                        'reference', i.value->>'reference') ORDER BY i.ord)
                        FROM jsonb_array_elements(CASE jsonb_typeof(p.payload->'payment_instructions')
                                                    WHEN 'array' THEN p.payload->'payment_instructions'
                                                    ELSE '[]'::jsonb END) WITH ORDINALITY AS i(value, ord)
                       WHERE i.value->>'vendor' = 'STRIPE'), '[]'::json) AS stripe
       FROM account_import_processes p WHERE p.id = $1`,
    [processId],
  );
  return rows[0]?.stripe ?? [];
}

/**
 * A dry run of an account never staged: a process row for it to be created against, inside the caller's
 * savepoint, which the dry run rolls back (nothing of it is ever committed).
 */
export async function insertDryRunProcess(tx: Sql, supplierCode: string, externalAccountNumber: string, now: Date) {
  await tx.query(
    `INSERT INTO account_import_processes (supplier_code, external_account_number, state, status, created_at, modified_at)
     VALUES ($1, $2, 'STAGED', 'PENDING', $3, $3)`,
    [supplierCode, externalAccountNumber, now],
  );
  return lockProcess(tx, supplierCode, externalAccountNumber);
}

/** The STRIPE instructions of the process's staged account, by its names (a v1 dry run). */
export async function stagedStripeInstructionsOf(
  db: Sql,
  names: { supplierCode: string; externalAccountNumber: string },
): Promise<StagedStripeInstruction[]> {
  const { rows } = await db.query<{ id: number }>(
    'SELECT id FROM account_import_processes WHERE supplier_code = $1 AND external_account_number = $2',
    [names.supplierCode, names.externalAccountNumber],
  );
  return rows[0] ? stagedStripeInstructions(db, rows[0].id) : [];
}

/** What decides why a creation job could not take its process. */
export async function findProcessFacts(db: Sql, supplierCode: string, externalAccountNumber: string) {
  const { rows } = await db.query<{
    status: string;
    has_payload: boolean;
    scheduled_request_id: string | null;
    platform_account_number: string | null;
  }>(
    `SELECT p.status::text AS status, p.payload IS NOT NULL AS has_payload, p.scheduled_request_id,
            a.platform_account_number
       FROM account_import_processes p LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
    [supplierCode, externalAccountNumber],
  );
  const r = rows[0];
  return (
    r && {
      status: r.status,
      payload: r.has_payload ? true : null,
      scheduledRequestId: r.scheduled_request_id,
      platformAccountNumber: r.platform_account_number,
    }
  );
}
