// What the support page reads. Staff work platform-side, so nothing here is scoped to an
// organisation: every supplier and every account is visible.
import { Prisma } from '../generated/prisma/client';
import type { DbClient } from '../platform/db';
import { LATEST_EVENTS, LATEST_ITEMS, type AccountListName } from './support.schemas';

export async function listSuppliers(db: DbClient) {
  return db.importSupplier.findMany({ select: { code: true, status: true }, orderBy: { code: 'asc' } });
}

export async function findSupplier(db: DbClient, code: string) {
  return db.importSupplier.findUnique({ where: { code }, select: { code: true, status: true } });
}

export interface SupplierCounts {
  pending: number;
  staged: number;
  in_progress: number;
  failed: number;
  imported: number;
}

/** Pending means "no platform account yet", as in the pending list endpoint. */
export async function countProcesses(db: DbClient, supplierCode: string): Promise<SupplierCounts> {
  const rows = await db.$queryRaw<SupplierCounts[]>`
    SELECT count(*) FILTER (WHERE a.id IS NULL)::int AS pending,
           count(*) FILTER (WHERE a.id IS NULL AND p.state = 'STAGED')::int AS staged,
           count(*) FILTER (WHERE a.id IS NULL AND p.state = 'IN_PROGRESS')::int AS in_progress,
           count(*) FILTER (WHERE a.id IS NULL AND p.state = 'FAILED')::int AS failed,
           count(*) FILTER (WHERE a.id IS NOT NULL)::int AS imported
      FROM account_import_processes p
      LEFT JOIN accounts a ON a.process_id = p.id
     WHERE p.supplier_code = ${supplierCode}`;
  return rows[0]!;
}

export interface ProcessPageRow {
  external_account_number: string;
  state: 'STAGED' | 'IN_PROGRESS' | 'IMPORTED' | 'FAILED';
  staged_at: Date;
  platform_account_number: string | null;
  account_created_at: Date | null;
}

/**
 * One keyset page in external-account-number order: after `after`, or (backwards) before `before`.
 * Fetches `limit + 1` rows so the caller learns whether another page follows. The unique index on
 * (supplier_code, external_account_number) serves both directions.
 */
export async function pageProcesses(
  db: DbClient,
  supplierCode: string,
  list: AccountListName,
  cursor: { after?: string; before?: string },
  limit: number,
): Promise<ProcessPageRow[]> {
  const which = list === 'pending' ? Prisma.sql`a.id IS NULL` : Prisma.sql`a.id IS NOT NULL`;
  const backwards = cursor.before !== undefined;
  const bound = backwards
    ? Prisma.sql`AND p.external_account_number < ${cursor.before}`
    : cursor.after !== undefined
      ? Prisma.sql`AND p.external_account_number > ${cursor.after}`
      : Prisma.empty;
  const rows = await db.$queryRaw<ProcessPageRow[]>`
    SELECT p.external_account_number, p.state::text AS state, p.staged_at,
           a.platform_account_number, a.created_at AS account_created_at
      FROM account_import_processes p
      LEFT JOIN accounts a ON a.process_id = p.id
     WHERE p.supplier_code = ${supplierCode} AND ${which} ${bound}
     ORDER BY p.external_account_number ${backwards ? Prisma.sql`DESC` : Prisma.sql`ASC`}
     LIMIT ${limit + 1}`;
  return rows;
}

const latest = { orderBy: { id: 'desc' }, take: LATEST_ITEMS } as const;

/** One account import process with what was imported onto its account: counts and the latest items. */
export async function findAccountDetail(db: DbClient, supplierCode: string, externalAccountNumber: string) {
  return db.accountImportProcess.findUnique({
    where: { supplierCode_externalAccountNumber: { supplierCode, externalAccountNumber } },
    select: {
      externalAccountNumber: true,
      state: true,
      stagedAt: true,
      // The account creation (docs/account-import.md): its v2 status, latest error and event history.
      status: true,
      latestError: true,
      isDryRun: true,
      scheduleWindowStart: true,
      scheduleWindowEnd: true,
      modifiedAt: true,
      events: { orderBy: { id: 'desc' }, take: LATEST_EVENTS, select: { event: true, occurredAt: true, data: true } },
      account: {
        select: {
          id: true,
          platformAccountNumber: true,
          createdAt: true,
          _count: { select: { notes: true, transactions: true, statements: true, paymentInstructions: true } },
          notes: { ...latest, select: { body: true, documents: true, createdAt: true, isPinned: true } },
          transactions: {
            ...latest,
            select: { transactionId: true, transactionDate: true, amount: true, type: true, createdAt: true },
          },
          statements: {
            ...latest,
            select: {
              statementId: true,
              billPeriodFromDate: true,
              billPeriodToDate: true,
              issuedDate: true,
              grossAmount: true,
            },
          },
          paymentInstructions: {
            ...latest,
            select: { vendor: true, type: true, reference: true, isActive: true, createdAt: true },
          },
        },
      },
    },
  });
}
