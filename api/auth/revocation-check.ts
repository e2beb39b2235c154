// Refuses a token whose signature and expiry are fine (or that the verified-token cache vouches for)
// when its API key was revoked or its organisation is disabled. The list is PostgreSQL's
// (shared/auth/revocation.use-cases.ts); each process reads it again once its copy is `refreshMs` old,
// in one query that the requests arriving meanwhile share. So on every replica a revocation refuses
// the key's tokens within `refreshMs` plus one query, and an idle process asks nothing. It runs on
// every request, after the cache, which therefore delays no revocation.
import type { AccessTokenClaims } from '../../shared/auth/access-token';
import type { Revocations } from '../../shared/auth/revocation.use-cases';
import { AuthenticationError } from '../../shared/platform/errors';

export interface RevocationCheckOptions {
  load: () => Promise<Revocations>;
  refreshMs: number;
  nowMs?: () => number;
}

/** Resolves when the token may be used; throws 401 authentication_failed when it is revoked. */
export type RevocationCheck = (claims: AccessTokenClaims) => Promise<void>;

export function revocationCheck(opts: RevocationCheckOptions): RevocationCheck {
  const now = opts.nowMs ?? Date.now;
  let current: { revocations: Revocations; loadedAtMs: number } | undefined;
  let loading: Promise<Revocations> | undefined;

  const load = async (): Promise<Revocations> => {
    // Dated from before the query: whatever committed before this moment is in the answer.
    const loadedAtMs = now();
    try {
      const revocations = await opts.load();
      current = { revocations, loadedAtMs };
      return revocations;
    } finally {
      loading = undefined;
    }
  };
  // A failed read is not remembered: the requests waiting on it fail (500, or 503 database_busy) and
  // the next one reads again. Serving a stale list instead could let a revoked key through for as
  // long as the database stays away.
  const revocations = (): Promise<Revocations> | Revocations => {
    if (current && now() - current.loadedAtMs < opts.refreshMs) return current.revocations;
    loading ??= load();
    return loading;
  };

  return async (claims) => {
    const { apiKeyIds, organisationIds } = await revocations();
    if (apiKeyIds.has(claims.key) || organisationIds.has(claims.org)) {
      throw new AuthenticationError(
        'authentication_failed',
        "This token's API key was revoked or its organisation disabled.",
      );
    }
  };
}
