// obtainToken: trade an organisation API key, or a refresh token, for an access token plus a new
// single-use refresh token. A refresh token presented twice revokes its whole family (RFC 6819
// §5.2.2.3): whoever holds the stolen copy loses it along with the legitimate client.
import { randomUUID } from 'node:crypto';
import type { Database, DbClient } from '../platform/db';
import { AppError } from '../platform/errors';
import type { AccessTokenClaims, TokenOrigin, TokenSigner } from './access-token';
import * as repo from './auth.repository';
import { API_KEY_MAX_LENGTH, digest, digestsEqual, generateRefreshToken, REFRESH_TOKEN_MAX_LENGTH } from './secrets';

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
  // Longer input is never a key of ours: refused before it is hashed, with the answer any unknown key gets.
  if (apiKey.length > API_KEY_MAX_LENGTH) throw new TokenRequestError('invalid_api_key', 'Invalid data.');
  const hash = digest(apiKey);
  const now = clock(deps);
  // Issued inside the transaction that holds the key row locked: a revocation waits for it, so no
  // token is ever issued after a revocation commits (auth.repository.ts).
  return deps.db.prisma.$transaction(async (tx) => {
    const key = await repo.lockActiveApiKeyByDigest(tx, hash);
    // One answer for unknown, revoked and malformed keys and disabled organisations: nothing tells a
    // guesser which organisations exist.
    if (!key || !digestsEqual(key.hash, hash)) {
      throw new TokenRequestError('invalid_api_key', 'Invalid data.');
    }
    const origin = { organisationId: key.organisation_id, apiKeyId: key.id };
    const refresh = await storeRefreshToken(tx, deps, origin, randomUUID(), now);
    return signAccessToken(deps, origin, now, refresh);
  });
}

export async function obtainTokenWithRefreshToken(deps: AuthDeps, refreshToken: string): Promise<IssuedTokens> {
  const now = clock(deps);
  type Outcome =
    | { error: 'invalid_refresh_token' | 'refresh_token_reused' | 'refresh_token_expired' }
    | { error: null; tokens: IssuedTokens };
  // The successor is stored in the transaction that spends its parent: a concurrent reuse of the
  // parent waits on the row lock, then revokes the family with the successor already in it. The key
  // row is locked first, as revokeApiKey locks it, so the two never deadlock.
  const outcome = await deps.db.prisma.$transaction(async (tx): Promise<Outcome> => {
    if (refreshToken.length > REFRESH_TOKEN_MAX_LENGTH) return { error: 'invalid_refresh_token' };
    const hash = digest(refreshToken);
    const keyId = await repo.findRefreshTokenApiKey(tx, hash);
    if (keyId === undefined || !(await repo.lockActiveApiKey(tx, keyId))) return { error: 'invalid_refresh_token' };
    const row = await repo.lockRefreshTokenByDigest(tx, hash);
    if (!row || row.revoked_at) return { error: 'invalid_refresh_token' };
    if (row.used_at) {
      await repo.revokeRefreshTokenFamily(tx, row.family, now);
      return { error: 'refresh_token_reused' };
    }
    if (row.expires_at <= now) return { error: 'refresh_token_expired' };
    await repo.markRefreshTokenUsed(tx, row.id, now);
    const origin = { organisationId: row.organisation_id, apiKeyId: row.api_key_id };
    const refresh = await storeRefreshToken(tx, deps, origin, row.family, now);
    return { error: null, tokens: await signAccessToken(deps, origin, now, refresh) };
  });
  if (outcome.error !== null) {
    const details = {
      invalid_refresh_token: 'Invalid refresh token.',
      refresh_token_reused: 'This refresh token was already used; every token issued from it is now revoked.',
      refresh_token_expired: 'The refresh token has expired. Sign in with the API key again.',
    };
    throw new TokenRequestError(outcome.error, details[outcome.error]);
  }
  return outcome.tokens;
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
  origin: TokenOrigin,
  family: string,
  now: Date,
): Promise<StoredRefreshToken> {
  const refreshToken = generateRefreshToken();
  const refreshExpiresIn = Math.floor(now.getTime() / 1000) + deps.refreshTtlSeconds;
  await repo.insertRefreshToken(db, {
    ...origin,
    family,
    hash: digest(refreshToken),
    expiresAt: new Date(refreshExpiresIn * 1000),
  });
  return { refreshToken, refreshExpiresIn };
}

async function signAccessToken(
  deps: AuthDeps,
  origin: TokenOrigin,
  now: Date,
  refresh: StoredRefreshToken,
): Promise<IssuedTokens> {
  const { token, payload } = await deps.signer.sign(origin, Math.floor(now.getTime() / 1000));
  return { token, payload, ...refresh };
}
