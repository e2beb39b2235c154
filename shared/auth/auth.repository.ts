// Storage of API keys and refresh tokens. Only digests are stored.
//
// Lock order, everywhere: the API key row, then refresh token rows. Issuing a token holds the key row
// locked until it commits; revoking a key updates that row (waiting for the issuance in flight) before
// it revokes the key's refresh tokens. So an issuance either commits before the revocation, and its
// token is then revoked with the rest, or sees the key revoked and issues nothing. The lock is FOR NO
// KEY UPDATE, not FOR SHARE: share locks do not queue behind a waiting writer, so a steady stream of
// sign-ins would starve the revocation for as long as it lasted (the concurrent test in
// test/auth/token-endpoint-abuse.test.ts never finished). Issuances of one key therefore run one at a
// time, a few milliseconds each.
import type { DbClient } from '../platform/db';

// "Active" also means the key's organisation is not disabled. Only the key row is locked: a token
// issued just before an organisation is disabled is refused by the revocation check all the same.

/** The active key with this digest, locked against revocation until the transaction ends. */
export async function lockActiveApiKeyByDigest(db: DbClient, hash: string) {
  const rows = await db.$queryRaw<{ id: number; organisation_id: number; hash: string }[]>`
    SELECT k.id, k.organisation_id, k.hash FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
     WHERE k.hash = ${hash} AND k.revoked_at IS NULL AND o.disabled_at IS NULL FOR NO KEY UPDATE OF k`;
  return rows[0];
}

/** Whether the key is still active, locking it against revocation until the transaction ends. */
export async function lockActiveApiKey(db: DbClient, id: number): Promise<boolean> {
  const rows = await db.$queryRaw<{ id: number }[]>`
    SELECT k.id FROM api_keys k JOIN organisations o ON o.id = k.organisation_id
     WHERE k.id = ${id} AND k.revoked_at IS NULL AND o.disabled_at IS NULL FOR NO KEY UPDATE OF k`;
  return rows.length === 1;
}

/**
 * Keys revoked since `since` (earlier revocations have outlived every token they could have issued)
 * and the organisations disabled now.
 */
export async function findRevocations(db: DbClient, since: Date) {
  return db.$queryRaw<{ kind: 'key' | 'organisation'; id: number }[]>`
    SELECT 'key' AS kind, id FROM api_keys WHERE revoked_at > ${since}
    UNION ALL
    SELECT 'organisation', id FROM organisations WHERE disabled_at IS NOT NULL`;
}

/** The key a refresh token's family started from (never changes, so no lock is needed to read it). */
export async function findRefreshTokenApiKey(db: DbClient, hash: string): Promise<number | undefined> {
  const row = await db.refreshToken.findUnique({ where: { hash }, select: { apiKeyId: true } });
  return row?.apiKeyId;
}

export async function insertRefreshToken(
  db: DbClient,
  row: { organisationId: number; apiKeyId: number; family: string; hash: string; expiresAt: Date },
): Promise<void> {
  await db.refreshToken.create({ data: row });
}

/** Locks the token row so two concurrent refreshes with one token cannot both succeed. */
export async function lockRefreshTokenByDigest(db: DbClient, hash: string) {
  const rows = await db.$queryRaw<
    {
      id: number;
      organisation_id: number;
      api_key_id: number;
      family: string;
      expires_at: Date;
      used_at: Date | null;
      revoked_at: Date | null;
    }[]
  >`SELECT id, organisation_id, api_key_id, family::text AS family, expires_at, used_at, revoked_at
      FROM refresh_tokens WHERE hash = ${hash} FOR UPDATE`;
  return rows[0];
}

export async function markRefreshTokenUsed(db: DbClient, id: number, at: Date): Promise<void> {
  await db.refreshToken.update({ where: { id }, data: { usedAt: at } });
}

export async function revokeRefreshTokenFamily(db: DbClient, family: string, at: Date): Promise<void> {
  await db.refreshToken.updateMany({ where: { family, revokedAt: null }, data: { revokedAt: at } });
}
