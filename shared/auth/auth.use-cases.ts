// obtainToken: trade an organisation API key, or a refresh token, for an access token plus a new
// single-use refresh token. A refresh token presented twice revokes its whole family (RFC 6819
// §5.2.2.3): whoever holds the stolen copy loses it along with the legitimate client.
import { randomUUID } from 'node:crypto';
import type { Database, DbClient } from '../platform/db';
import { AppError } from '../platform/errors';
import type { AccessTokenClaims, TokenSigner } from './access-token';
import * as repo from './auth.repository';
import { digest, digestsEqual, generateRefreshToken } from './secrets';

export class TokenRequestError extends AppError {
  constructor(code: string, detail: string) {
    super(400, code, detail);
  }
}

export interface IssuedTokens {
  token: string;
  payload: AccessTokenClaims;
  refreshToken: string;
  refreshExpiresIn: number;
}

export interface AuthDeps {
  db: Database;
  signer: TokenSigner;
  refreshTtlSeconds: number;
  now?: () => Date;
}

export async function obtainTokenWithApiKey(deps: AuthDeps, apiKey: string): Promise<IssuedTokens> {
  const hash = digest(apiKey);
  const key = await repo.findActiveApiKeyByDigest(deps.db.prisma, hash);
  // One answer for unknown, revoked and malformed keys: nothing tells a guesser which organisations exist.
  if (!key || !digestsEqual(key.hash, hash)) {
    throw new TokenRequestError('invalid_api_key', 'Invalid data.');
  }
  const now = clock(deps);
  const refresh = await storeRefreshToken(deps.db.prisma, deps, key.organisationId, randomUUID(), now);
  return signAccessToken(deps, key.organisationId, now, refresh);
}

export async function obtainTokenWithRefreshToken(deps: AuthDeps, refreshToken: string): Promise<IssuedTokens> {
  const now = clock(deps);
  type Outcome =
    | { error: 'invalid_refresh_token' | 'refresh_token_reused' | 'refresh_token_expired' }
    | { error: null; organisationId: number; refresh: StoredRefreshToken };
  // The successor is stored in the transaction that spends its parent: a concurrent reuse of the
  // parent waits on the row lock, then revokes the family with the successor already in it.
  const outcome = await deps.db.prisma.$transaction(async (tx): Promise<Outcome> => {
    const row = await repo.lockRefreshTokenByDigest(tx, digest(refreshToken));
    if (!row || row.revoked_at) return { error: 'invalid_refresh_token' };
    if (row.used_at) {
      await repo.revokeRefreshTokenFamily(tx, row.family, now);
      return { error: 'refresh_token_reused' };
    }
    if (row.expires_at <= now) return { error: 'refresh_token_expired' };
    await repo.markRefreshTokenUsed(tx, row.id, now);
    const refresh = await storeRefreshToken(tx, deps, row.organisation_id, row.family, now);
    return { error: null, organisationId: row.organisation_id, refresh };
  });
  if (outcome.error !== null) {
    const details = {
      invalid_refresh_token: 'Invalid refresh token.',
      refresh_token_reused: 'This refresh token was already used; every token issued from it is now revoked.',
      refresh_token_expired: 'The refresh token has expired. Sign in with the API key again.',
    };
    throw new TokenRequestError(outcome.error, details[outcome.error]);
  }
  return signAccessToken(deps, outcome.organisationId, now, outcome.refresh);
}

interface StoredRefreshToken {
  refreshToken: string;
  /** Unix seconds. */
  refreshExpiresIn: number;
}

const clock = (deps: AuthDeps): Date => (deps.now ?? (() => new Date()))();

async function storeRefreshToken(
  db: DbClient,
  deps: AuthDeps,
  organisationId: number,
  family: string,
  now: Date,
): Promise<StoredRefreshToken> {
  const refreshToken = generateRefreshToken();
  const refreshExpiresIn = Math.floor(now.getTime() / 1000) + deps.refreshTtlSeconds;
  await repo.insertRefreshToken(db, { organisationId, family, hash: digest(refreshToken), expiresAt: new Date(refreshExpiresIn * 1000) });
  return { refreshToken, refreshExpiresIn };
}

async function signAccessToken(
  deps: AuthDeps,
  organisationId: number,
  now: Date,
  refresh: StoredRefreshToken,
): Promise<IssuedTokens> {
  const { token, payload } = await deps.signer.sign(organisationId, Math.floor(now.getTime() / 1000));
  return { token, payload, ...refresh };
}
