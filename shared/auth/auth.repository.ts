// Storage of API keys and refresh tokens. Only digests are stored.
import type { DbClient } from '../platform/db';

export async function findActiveApiKeyByDigest(db: DbClient, hash: string) {
  return db.apiKey.findFirst({
    where: { hash, revokedAt: null },
    select: { organisationId: true, hash: true },
  });
}

export async function insertRefreshToken(
  db: DbClient,
  row: { organisationId: number; family: string; hash: string; expiresAt: Date },
): Promise<void> {
  await db.refreshToken.create({ data: row });
}

/** Locks the token row so two concurrent refreshes with one token cannot both succeed. */
export async function lockRefreshTokenByDigest(db: DbClient, hash: string) {
  const rows = await db.$queryRaw<
    { id: number; organisation_id: number; family: string; expires_at: Date; used_at: Date | null; revoked_at: Date | null }[]
  >`SELECT id, organisation_id, family::text AS family, expires_at, used_at, revoked_at
      FROM refresh_tokens WHERE hash = ${hash} FOR UPDATE`;
  return rows[0];
}

export async function markRefreshTokenUsed(db: DbClient, id: number, at: Date): Promise<void> {
  await db.refreshToken.update({ where: { id }, data: { usedAt: at } });
}

export async function revokeRefreshTokenFamily(db: DbClient, family: string, at: Date): Promise<void> {
  await db.refreshToken.updateMany({ where: { family, revokedAt: null }, data: { revokedAt: at } });
}
