// Migration progress as the status and list endpoints report it.
import type { Database } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';
import {
  accountNotFound,
  type AppError,
  codeOfErrorBody,
  NotFoundError,
  supplierNotFound,
  ValidationError,
} from '../platform/errors';
import { isStorableText } from '../platform/validation';
import * as repo from './account.repository';
import type { AccountKey, WritableAccountCache } from './writable-account-cache';

export type TransferStatus = 'UNKNOWN' | 'IN_PROGRESS' | 'COMPLETED';

export const STATUS_BY_STATE: Record<repo.ProcessStatusRow['state'], TransferStatus> = {
  STAGED: 'UNKNOWN',
  FAILED: 'UNKNOWN',
  IN_PROGRESS: 'IN_PROGRESS',
  IMPORTED: 'COMPLETED',
};

export async function getTransferStatus(
  db: Database,
  organisationId: number,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<{ status: TransferStatus; platform_account_number: string }> {
  // Path segments arrive decoded: a NUL (%00) would make PostgreSQL refuse the query, not miss the row.
  const storable = isStorableText(supplierCode) && isStorableText(externalAccountNumber);
  const row = storable
    ? await repo.findProcessStatus(db.pool, organisationId, supplierCode, externalAccountNumber)
    : undefined;
  if (!row) {
    throw new NotFoundError(
      'account_not_found',
      'No account import process found for this import supplier and external account number.',
    );
  }
  return { status: STATUS_BY_STATE[row.state], platform_account_number: row.platform_account_number ?? '' };
}

export async function openProcessList(
  db: Database,
  organisationId: number,
  supplierCode: string,
  filter: repo.ProcessListFilter,
  statementTimeoutMs: number,
) {
  if (!isStorableText(supplierCode) || !(await repo.isSupplierVisible(db.pool, organisationId, supplierCode))) {
    throw supplierNotFound();
  }
  return repo.streamProcessList(db.pool, supplierCode, filter, statementTimeoutMs);
}

/**
 * The account a write goes to: imported and visible to the caller (else 404 account_not_found), on
 * a supplier whose migration is Ongoing (else 400 import_supplier_migration_not_ongoing). With a cache,
 * a writable account found within its TTL is answered without a statement: the write's own commit must
 * then check again what may have changed (writeRefusal, on what the transactions job's lock reads).
 */
export async function resolveWritableAccount(
  db: Database,
  organisationId: number,
  ref: WriteRef,
  cache?: WritableAccountCache,
): Promise<repo.ImportedAccount> {
  const key = accountKeyOf(organisationId, ref);
  if (!key) throw accountNotFound();
  const cached = cache?.get(key);
  if (cached) return cached;
  const account = await repo.findImportedAccount(
    db.pool,
    organisationId,
    ref.import_supplier,
    key.externalAccountNumber,
  );
  const refusal = writeRefusal(ref.import_supplier, account && { writable: true, ...account });
  if (refusal) throw refusal;
  cache?.set(key, account!);
  return account!;
}

/**
 * After a write resolved through `cache` was answered: when its commit refused the account (it changed
 * under the cache's entry), the entry goes, so the next request looks the account up again.
 */
export function forgetRefusedAccount(
  cache: WritableAccountCache,
  organisationId: number,
  ref: WriteRef,
  answer: { status: number; body: unknown },
): void {
  const code = answer.status >= 400 ? codeOfErrorBody(answer.body) : undefined;
  const key = accountKeyOf(organisationId, ref);
  if (key && (code === 'account_not_found' || code === 'import_supplier_migration_not_ongoing')) cache.delete(key);
}

type WriteRef = { import_supplier: string; external_account_number?: string; account_number?: string };

function accountKeyOf(organisationId: number, ref: WriteRef): AccountKey | undefined {
  // Notes and transactions also take the contract's deprecated `account_number` (checked equal when both come).
  const external = ref.external_account_number ?? ref.account_number;
  return external ? { organisationId, supplierCode: ref.import_supplier, externalAccountNumber: external } : undefined;
}

/**
 * What resolveWritableAccount answers for an account as found: `writable` false (or no account) when it
 * is not imported or not visible to the caller under `supplierCode`; undefined when a write may go on.
 */
export function writeRefusal(
  supplierCode: string,
  account: { writable: boolean; supplierStatus: SupplierStatus } | undefined,
): AppError | undefined {
  if (!account?.writable) return accountNotFound();
  if (account.supplierStatus === 'Ongoing') return undefined;
  return new ValidationError(
    [
      {
        attr: 'import_supplier',
        code: 'import_supplier_migration_not_ongoing',
        detail: `Migration for import supplier ${supplierCode} is ${account.supplierStatus}; it accepts no data.`,
      },
    ],
    `Migration for import supplier ${supplierCode} is ${account.supplierStatus}.`,
    'import_supplier_migration_not_ongoing',
  );
}

/**
 * The refusals of a write to an account that is not there for the caller (null: not imported or not
 * visible, 404 account_not_found) or whose supplier's migration is not Ongoing (400).
 */
export function assertWritable(importSupplier: string, supplierStatus: string | null): void {
  const account =
    supplierStatus === null ? undefined : { writable: true, supplierStatus: supplierStatus as SupplierStatus };
  const refusal = writeRefusal(importSupplier, account);
  if (refusal) throw refusal;
}

// What other components may use (they never import account.repository.ts): whether a caller may use a
// supplier (reconciliation), and the process lists as a stream (the support page's CSV downloads).
export { isSupplierVisible, streamProcessList, WRITABLE_ACCOUNT_SQL } from './account.repository';
export { WritableAccountCache } from './writable-account-cache';
export { ACCOUNT_WRITE_ARGS, accountWriteValues, type AccountWrite } from './account-write';
