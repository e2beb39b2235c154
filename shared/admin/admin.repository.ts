// Writes behind the platform-team CLI. Every function takes the transaction client it runs in.
import type { DbClient } from '../platform/db';
import type { ImportState, SupplierStatus } from '../generated/prisma/client';

export async function upsertSupplier(
  db: DbClient,
  s: { code: string; status: SupplierStatus; documentRoot: string; sendEmails: boolean },
): Promise<void> {
  await db.importSupplier.upsert({
    where: { code: s.code },
    create: s,
    update: { status: s.status, documentRoot: s.documentRoot, sendEmails: s.sendEmails },
  });
}

export async function existingSupplierCodes(db: DbClient, codes: string[]): Promise<Set<string>> {
  const rows = await db.importSupplier.findMany({ where: { code: { in: codes } }, select: { code: true } });
  return new Set(rows.map((r) => r.code));
}

export async function upsertOrganisation(db: DbClient, name: string): Promise<number> {
  const org = await db.organisation.upsert({ where: { name }, create: { name }, update: {}, select: { id: true } });
  return org.id;
}

export async function setOrganisationSuppliers(db: DbClient, organisationId: number, codes: string[]): Promise<void> {
  await db.organisationSupplier.deleteMany({ where: { organisationId, supplierCode: { notIn: codes } } });
  await db.organisationSupplier.createMany({
    data: codes.map((supplierCode) => ({ organisationId, supplierCode })),
    skipDuplicates: true,
  });
}

export async function findApiKeyByDigest(db: DbClient, hash: string) {
  return db.apiKey.findUnique({ where: { hash }, select: { id: true, organisationId: true, revokedAt: true } });
}

export async function countActiveApiKeys(db: DbClient, organisationId: number): Promise<number> {
  return db.apiKey.count({ where: { organisationId, revokedAt: null } });
}

export async function insertApiKey(
  db: DbClient,
  k: { organisationId: number; prefix: string; hash: string; label?: string },
): Promise<number> {
  const row = await db.apiKey.create({ data: k, select: { id: true } });
  return row.id;
}

export async function findProcess(db: DbClient, supplierCode: string, externalAccountNumber: string) {
  return db.accountImportProcess.findUnique({
    where: { supplierCode_externalAccountNumber: { supplierCode, externalAccountNumber } },
    select: { id: true, state: true, account: { select: { id: true, platformAccountNumber: true } } },
  });
}

export async function upsertProcess(
  db: DbClient,
  supplierCode: string,
  externalAccountNumber: string,
  state: ImportState,
): Promise<number> {
  const row = await db.accountImportProcess.upsert({
    where: { supplierCode_externalAccountNumber: { supplierCode, externalAccountNumber } },
    create: { supplierCode, externalAccountNumber, state },
    update: { state },
    select: { id: true },
  });
  return row.id;
}

export async function insertAccount(
  db: DbClient,
  a: { processId: number; platformAccountNumber: string; createdAt: Date },
): Promise<number> {
  const row = await db.account.create({ data: a, select: { id: true } });
  return row.id;
}

export async function findOpenStatementPeriod(db: DbClient, accountId: number) {
  return db.statementPeriod.findFirst({ where: { accountId, isOpen: true }, select: { id: true, startsOn: true } });
}

export async function openStatementPeriod(db: DbClient, accountId: number, startsOn: Date): Promise<void> {
  await db.statementPeriod.create({ data: { accountId, startsOn, isOpen: true } });
}

/** Closes the open period the day before `startsOn` and opens a new one from `startsOn`. */
export async function rollStatementPeriod(db: DbClient, periodId: number, accountId: number, startsOn: Date): Promise<void> {
  const dayBefore = new Date(startsOn.getTime() - 86_400_000);
  await db.statementPeriod.update({ where: { id: periodId }, data: { isOpen: false, endsOn: dayBefore } });
  await openStatementPeriod(db, accountId, startsOn);
}
