// Migration progress as the status and list endpoints report it.
import type { Database } from '../platform/db';
import { NotFoundError, supplierNotFound } from '../platform/errors';
import * as repo from './account.repository';

export type TransferStatus = 'UNKNOWN' | 'IN_PROGRESS' | 'COMPLETED';

const STATUS_BY_STATE: Record<repo.ProcessStatusRow['state'], TransferStatus> = {
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
  const row = await repo.findProcessStatus(db.prisma, organisationId, supplierCode, externalAccountNumber);
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
) {
  if (!(await repo.isSupplierVisible(db.prisma, organisationId, supplierCode))) throw supplierNotFound();
  return repo.streamProcessList(db.pool, supplierCode, filter);
}
