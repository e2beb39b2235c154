// Import suppliers as the platform team manages them.
import type { DbClient } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';

export interface SupplierFields {
  status: SupplierStatus;
  documentRoot: string;
  sendEmails: boolean;
}

const SUPPLIER = {
  code: true,
  status: true,
  documentRoot: true,
  sendEmails: true,
  createdAt: true,
  updatedAt: true,
} as const;

export async function findSupplier(db: DbClient, code: string) {
  return db.importSupplier.findUnique({ where: { code }, select: SUPPLIER });
}

/** Inserts the supplier unless the code exists; says whether it did (no race between check and insert). */
export async function insertSupplierIfAbsent(db: DbClient, s: SupplierFields & { code: string }): Promise<boolean> {
  const { count } = await db.importSupplier.createMany({ data: [s], skipDuplicates: true });
  return count === 1;
}

export async function updateSupplier(db: DbClient, code: string, fields: Partial<SupplierFields>) {
  return db.importSupplier.update({ where: { code }, data: fields, select: SUPPLIER });
}

export async function listSuppliers(db: DbClient) {
  return db.importSupplier.findMany({ select: SUPPLIER, orderBy: { code: 'asc' } });
}

/** Another supplier whose document root equals `root`, contains it, or lies inside it. */
export async function findOverlappingDocumentRoot(db: DbClient, code: string, root: string) {
  const rows = await db.$queryRaw<{ code: string; document_root: string }[]>`
    SELECT code, document_root FROM import_suppliers
     WHERE code <> ${code}
       AND (document_root = ${root} OR starts_with(${root}, document_root || '/') OR starts_with(document_root, ${root} || '/'))
     LIMIT 1`;
  return rows[0];
}

export async function existingSupplierCodes(db: DbClient, codes: string[]): Promise<Set<string>> {
  const rows = await db.importSupplier.findMany({ where: { code: { in: codes } }, select: { code: true } });
  return new Set(rows.map((r) => r.code));
}
