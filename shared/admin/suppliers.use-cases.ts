// Import suppliers: created and configured by the platform team (spec: "Import suppliers").
import type { Database, DbClient } from '../platform/db';
import { ConflictError, supplierNotFound, ValidationError } from '../platform/errors';
import { formatDateTime } from '../platform/fields';
import { parseOrThrow } from '../platform/validation';
import { SupplierCreate, SupplierUpdate } from './admin.schemas';
import type { SupplierSpecT } from './apply.schemas';
import * as repo from './suppliers.repository';

type SupplierRow = NonNullable<Awaited<ReturnType<typeof repo.findSupplier>>>;

function supplierView(s: SupplierRow) {
  return {
    code: s.code,
    status: s.status,
    document_root: s.documentRoot,
    send_emails: s.sendEmails,
    created_at: formatDateTime(s.createdAt),
    updated_at: formatDateTime(s.updatedAt),
  };
}

export async function createSupplier(db: Database, input: unknown) {
  const s = parseOrThrow(SupplierCreate, input);
  return db.prisma.$transaction(async (tx) => {
    await checkDocumentRoot(tx, s.code, s.document_root);
    const created = await repo.insertSupplierIfAbsent(tx, {
      code: s.code,
      status: s.status,
      documentRoot: s.document_root,
      sendEmails: s.send_emails,
    });
    if (!created)
      throw new ConflictError('import_supplier_already_exists', `Import supplier ${s.code} already exists.`);
    return supplierView((await repo.findSupplier(tx, s.code))!);
  });
}

/**
 * Refuses a root equal to, inside, or containing another supplier's. The unique index on the column
 * settles two concurrent equal roots; nesting is checked here only.
 */
async function checkDocumentRoot(tx: DbClient, code: string, root: string): Promise<void> {
  const other = await repo.findOverlappingDocumentRoot(tx, code, root);
  if (other) {
    throw ValidationError.single(
      'document_root',
      'document_root_in_use',
      `The document root "${root}" overlaps supplier ${other.code}'s "${other.document_root}": each supplier needs a root of its own.`,
    );
  }
}

export async function updateSupplier(db: Database, input: unknown) {
  const u = parseOrThrow(SupplierUpdate, input);
  return db.prisma.$transaction(async (tx) => {
    const current = await repo.findSupplier(tx, u.code);
    if (!current) throw supplierNotFound();
    if (u.document_root !== undefined) await checkDocumentRoot(tx, u.code, u.document_root);
    const row = await saveChanges(tx, current, {
      status: u.status ?? current.status,
      documentRoot: u.document_root ?? current.documentRoot,
      sendEmails: u.send_emails ?? current.sendEmails,
    });
    return supplierView(row);
  });
}

export async function listSuppliers(db: Database) {
  return (await repo.listSuppliers(db.prisma)).map(supplierView);
}

/** apply's step: creates the supplier or brings it to `s`, writing (and bumping updated_at) only on a change. */
export async function upsertSupplier(tx: DbClient, s: SupplierSpecT): Promise<void> {
  const fields = { status: s.status, documentRoot: s.document_root, sendEmails: s.send_emails };
  await checkDocumentRoot(tx, s.code, s.document_root);
  if (await repo.insertSupplierIfAbsent(tx, { code: s.code, ...fields })) return;
  await saveChanges(tx, (await repo.findSupplier(tx, s.code))!, fields);
}

async function saveChanges(tx: DbClient, current: SupplierRow, next: repo.SupplierFields): Promise<SupplierRow> {
  const changed =
    current.status !== next.status ||
    current.documentRoot !== next.documentRoot ||
    current.sendEmails !== next.sendEmails;
  return changed ? repo.updateSupplier(tx, current.code, next) : current;
}

/** Fails with one error per reference (at its attr) to a supplier that neither exists nor is `declared`. */
export async function checkSupplierReferences(
  tx: DbClient,
  references: { code: string; attr: string }[],
  declared: ReadonlySet<string> = new Set(),
): Promise<void> {
  const existing = await repo.existingSupplierCodes(tx, [...new Set(references.map((r) => r.code))]);
  const missing = references.filter((r) => !declared.has(r.code) && !existing.has(r.code));
  if (missing.length > 0) {
    throw new ValidationError(
      missing.map((m) => ({
        attr: m.attr,
        code: 'import_supplier_not_found',
        detail: `Unknown import supplier "${m.code}".`,
      })),
      `Unknown import supplier "${missing[0]!.code}".`,
      'import_supplier_not_found',
    );
  }
}
