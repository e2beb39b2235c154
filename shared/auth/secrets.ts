// Opaque secrets (API keys, refresh tokens): generation and the digest we store instead of them.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const API_KEY_MIN_LENGTH = 32;
/** Longer input is no key or token of ours: refused before it is hashed or looked up. */
export const API_KEY_MAX_LENGTH = 256;
export const REFRESH_TOKEN_MAX_LENGTH = 256;

export function generateApiKey(): string {
  return `dik_${randomBytes(30).toString('base64url')}`;
}

export function generateRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

export function digest(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** Compares two hex digests without leaking, through timing, how much of them matched. */
export function digestsEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ab.length === bb.length && timingSafeEqual(ab, bb);
}

export function keyPrefix(apiKey: string): string {
  return apiKey.slice(0, 8);
}
