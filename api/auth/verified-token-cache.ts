// A short in-process memory of access tokens this process has verified, so a client's every request
// does not pay the HMAC and claim checks again. Keyed by the exact token text: a hit means these very
// bytes passed verification before. An entry lives at most TOKEN_CACHE_SECONDS and never past the
// token's own `exp`; failures are never remembered. Bounded: past TOKEN_CACHE_SIZE entries the oldest
// goes first. Revocation is checked after this cache on every request (revocation-check.ts), so a
// remembered token is refused as soon as its key is revoked.
import type { AccessTokenClaims, TokenSigner } from '../../shared/auth/access-token';

export interface TokenCacheOptions {
  maxEntries: number;
  ttlMs: number;
  nowMs?: () => number;
}

interface Entry {
  claims: AccessTokenClaims;
  untilMs: number;
}

/** The signer with `verify` answered from the cache when it can; `sign` is untouched. */
export function cachingVerifier(signer: TokenSigner, opts: TokenCacheOptions): TokenSigner {
  if (opts.maxEntries <= 0 || opts.ttlMs <= 0) return signer;
  const now = opts.nowMs ?? Date.now;
  // Map keeps insertion order: the first key is the oldest entry.
  const entries = new Map<string, Entry>();
  return {
    sign: (origin, nowSeconds) => signer.sign(origin, nowSeconds),
    async verify(token) {
      const at = now();
      const hit = entries.get(token);
      if (hit && at < hit.untilMs) return hit.claims;
      if (hit) entries.delete(token);
      const claims = Object.freeze(await signer.verify(token));
      // jose treats a token as expired from `exp` itself on, so the entry ends just before.
      const untilMs = Math.min(at + opts.ttlMs, claims.exp * 1000);
      if (untilMs > at) {
        if (entries.size >= opts.maxEntries) entries.delete(entries.keys().next().value!);
        entries.set(token, { claims, untilMs });
      }
      return claims;
    },
  };
}
