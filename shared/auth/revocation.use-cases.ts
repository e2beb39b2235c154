// What refuses a token whose signature and expiry are fine: its API key was revoked, or its
// organisation is disabled. Read from PostgreSQL, where `admin api-keys revoke` and `admin
// organisations disable` write, so every API replica sees the same list and nothing is lost when
// Redis restarts; each API process holds a copy it renews every few seconds (api/auth/revocation-check.ts).
import { MAX_TOKEN_TTL_SECONDS } from '../platform/config';
import type { Database } from '../platform/db';
import { findRevocations } from './auth.repository';

/** Room for the clocks of the API processes and of PostgreSQL to disagree. */
const CLOCK_SKEW_SECONDS = 300;

export interface Revocations {
  apiKeyIds: ReadonlySet<number>;
  organisationIds: ReadonlySet<number>;
}

/**
 * Keys revoked within the longest lifetime a token may have (older revocations have outlived every
 * token they could refuse, so the list stays short), and every disabled organisation.
 */
export async function loadRevocations(db: Database, now: Date): Promise<Revocations> {
  const since = new Date(now.getTime() - (MAX_TOKEN_TTL_SECONDS + CLOCK_SKEW_SECONDS) * 1000);
  const rows = await findRevocations(db.prisma, since);
  const ids = (kind: 'key' | 'organisation') => new Set(rows.filter((r) => r.kind === kind).map((r) => r.id));
  return { apiKeyIds: ids('key'), organisationIds: ids('organisation') };
}
