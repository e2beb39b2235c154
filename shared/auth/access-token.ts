// Access tokens are HS256 JWTs signed with TOKEN_SECRET. Only HS256 is accepted on the way in, so
// `alg: none` and algorithm-confusion tokens fail verification. Each names the API key it was issued
// from (`key`), so revoking that key refuses it at once (api/auth/revocation-check.ts); a token
// without one (issued before keys were named) is refused, and its client signs in again.
import { errors, jwtVerify, SignJWT } from 'jose';
import { AuthenticationError } from '../platform/errors';

const ISSUER = 'data-import-service';
const AUDIENCE = 'data-import-api';
const ALGORITHM = 'HS256';

export interface AccessTokenClaims {
  sub: string;
  org: number;
  /** The id of the API key whose sign-in (or refresh chain) issued the token. */
  key: number;
  iat: number;
  exp: number;
  iss: string;
  aud: string;
}

/** Who a token is for: the organisation, and the API key it was issued from. */
export interface TokenOrigin {
  organisationId: number;
  apiKeyId: number;
}

export interface TokenSigner {
  sign(origin: TokenOrigin, nowSeconds: number): Promise<{ token: string; payload: AccessTokenClaims }>;
  verify(token: string): Promise<AccessTokenClaims>;
}

export function createTokenSigner(secret: string, ttlSeconds: number): TokenSigner {
  const key = new TextEncoder().encode(secret);
  return {
    async sign({ organisationId, apiKeyId }, nowSeconds) {
      const payload: AccessTokenClaims = {
        sub: `organisation:${organisationId}`,
        org: organisationId,
        key: apiKeyId,
        iat: nowSeconds,
        exp: nowSeconds + ttlSeconds,
        iss: ISSUER,
        aud: AUDIENCE,
      };
      const token = await new SignJWT({ org: organisationId, key: apiKeyId })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(payload.sub)
        .setIssuedAt(payload.iat)
        .setExpirationTime(payload.exp)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .sign(key);
      return { token, payload };
    },
    async verify(token) {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: ISSUER,
          audience: AUDIENCE,
          // jose checks exp only when it is present: a token without one would never expire.
          requiredClaims: ['exp', 'iat'],
        });
        if (!Number.isSafeInteger(payload.org) || !Number.isSafeInteger(payload.key)) {
          throw new AuthenticationError('authentication_failed', 'Invalid token.');
        }
        return payload as unknown as AccessTokenClaims;
      } catch (err) {
        if (err instanceof errors.JWTExpired) {
          throw new AuthenticationError('token_expired', 'The token has expired. Obtain a new one.');
        }
        if (err instanceof AuthenticationError) throw err;
        throw new AuthenticationError('authentication_failed', 'Invalid token.');
      }
    },
  };
}

/**
 * Reads the token from an Authorization header. Accepted forms: `Token <jwt>` (the documented one),
 * `Bearer <jwt>` and the bare `<jwt>`.
 */
export function tokenFromHeader(header: string | undefined): string {
  const value = header?.trim();
  if (!value) {
    throw new AuthenticationError('not_authenticated', 'Authentication credentials were not provided.');
  }
  const match = /^(?:(Token|Bearer|JWT)\s+)?(\S+)$/i.exec(value);
  if (!match?.[2]) {
    throw new AuthenticationError('authentication_failed', 'Invalid Authorization header.');
  }
  return match[2];
}
