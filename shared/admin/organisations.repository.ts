// Organisations, the suppliers each may use, and their API keys (stored as SHA-256 digests only).
import type { DbClient } from '../platform/db';

const ORGANISATION = {
  id: true,
  name: true,
  createdAt: true,
  disabledAt: true,
  suppliers: { select: { supplierCode: true }, orderBy: { supplierCode: 'asc' } },
  _count: { select: { apiKeys: { where: { revokedAt: null } } } },
} as const;

export async function findOrganisationByName(db: DbClient, name: string) {
  return db.organisation.findUnique({ where: { name }, select: ORGANISATION });
}

export async function listOrganisations(db: DbClient) {
  return db.organisation.findMany({ select: ORGANISATION, orderBy: { name: 'asc' } });
}

/** Inserts the organisation unless the name is taken; its id, or undefined when it existed. */
export async function insertOrganisationIfAbsent(db: DbClient, name: string): Promise<number | undefined> {
  const rows = await db.organisation.createManyAndReturn({
    data: [{ name }],
    skipDuplicates: true,
    select: { id: true },
  });
  return rows[0]?.id;
}

export async function upsertOrganisation(db: DbClient, name: string): Promise<number> {
  const org = await db.organisation.upsert({ where: { name }, create: { name }, update: {}, select: { id: true } });
  return org.id;
}

/** Disables the organisation unless it already is (the first time is kept), or enables it (`at` null). */
export async function setOrganisationDisabled(db: DbClient, id: number, at: Date | null): Promise<void> {
  await db.organisation.updateMany({
    where: { id, disabledAt: at === null ? { not: null } : null },
    data: { disabledAt: at },
  });
}

export async function addOrganisationSuppliers(db: DbClient, organisationId: number, codes: string[]): Promise<void> {
  await db.organisationSupplier.createMany({
    data: codes.map((supplierCode) => ({ organisationId, supplierCode })),
    skipDuplicates: true,
  });
}

export async function removeOrganisationSuppliers(
  db: DbClient,
  organisationId: number,
  codes: string[],
): Promise<void> {
  await db.organisationSupplier.deleteMany({ where: { organisationId, supplierCode: { in: codes } } });
}

/** Makes `codes` the organisation's whole supplier list. */
export async function setOrganisationSuppliers(db: DbClient, organisationId: number, codes: string[]): Promise<void> {
  await db.organisationSupplier.deleteMany({ where: { organisationId, supplierCode: { notIn: codes } } });
  await addOrganisationSuppliers(db, organisationId, codes);
}

const API_KEY = {
  id: true,
  prefix: true,
  label: true,
  createdAt: true,
  revokedAt: true,
  organisation: { select: { name: true } },
} as const;

export async function findApiKeyByDigest(db: DbClient, hash: string) {
  return db.apiKey.findUnique({ where: { hash }, select: { id: true, organisationId: true, revokedAt: true } });
}

export async function findApiKey(db: DbClient, id: number) {
  return db.apiKey.findUnique({ where: { id }, select: { ...API_KEY, organisationId: true } });
}

export async function countActiveApiKeys(db: DbClient, organisationId: number): Promise<number> {
  return db.apiKey.count({ where: { organisationId, revokedAt: null } });
}

export async function insertApiKey(
  db: DbClient,
  k: { organisationId: number; prefix: string; hash: string; label?: string },
) {
  return db.apiKey.create({ data: k, select: API_KEY });
}

export async function listApiKeys(db: DbClient, organisationId?: number) {
  return db.apiKey.findMany({ where: { organisationId }, select: API_KEY, orderBy: { id: 'asc' } });
}

/** Revokes the key unless it already is (the first revocation time is kept); says whether it did. */
export async function revokeApiKey(db: DbClient, id: number, at: Date): Promise<boolean> {
  const { count } = await db.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
  return count === 1;
}

/** Run after the key row is updated (and so locked): see the lock order in shared/auth/auth.repository.ts. */
export async function revokeRefreshTokensOf(db: DbClient, apiKeyId: number, at: Date): Promise<number> {
  const { count } = await db.refreshToken.updateMany({
    where: { apiKeyId, revokedAt: null, usedAt: null, expiresAt: { gt: at } },
    data: { revokedAt: at },
  });
  return count;
}
