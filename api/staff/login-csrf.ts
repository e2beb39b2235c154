// CSRF defence of the sign-in form without a session: nothing is stored anywhere before a sign-in
// succeeds, so a flood of anonymous visits costs no Redis memory. The browser gets a random nonce in
// a short-lived HttpOnly cookie scoped to /login; the form carries HMAC(SESSION_SECRET, nonce). A
// cross-site page can neither read the cookie nor compute the MAC, and a value planted into the
// cookie by a sibling subdomain is useless without the secret.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, Response } from 'express';

const COOKIE = 'staff_login_nonce';
const MAX_AGE_MS = 15 * 60_000;

export interface LoginCsrfSettings {
  /** The current secret first; the previous one is accepted during a rotation. */
  secrets: string[];
  secure: boolean | 'auto';
}

const mac = (secret: string, nonce: string) => createHmac('sha256', secret).update(nonce).digest('base64url');

/** Sets a fresh nonce cookie and answers the token the form must send back. */
export function issueLoginToken(req: Request, res: Response, s: LoginCsrfSettings): string {
  const nonce = randomBytes(24).toString('base64url');
  const secure = s.secure === 'auto' ? req.secure : s.secure;
  res.cookie(COOKIE, nonce, { httpOnly: true, sameSite: 'strict', secure, path: '/login', maxAge: MAX_AGE_MS });
  return mac(s.secrets[0]!, nonce);
}

function nonceOf(req: Request): string | undefined {
  // The Cookie header is bounded by Node's header size limit; the nonce is base64url.
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === COOKIE && value && /^[A-Za-z0-9_-]{1,64}$/.test(value)) return value;
  }
  return undefined;
}

export function isLoginTokenValid(req: Request, s: LoginCsrfSettings): boolean {
  const given = (req.body as { _csrf?: unknown } | undefined)?._csrf;
  const nonce = nonceOf(req);
  if (typeof given !== 'string' || given.length > 64 || !nonce) return false;
  const givenBytes = Buffer.from(given);
  return s.secrets.some((secret) => {
    const expected = Buffer.from(mac(secret, nonce));
    return expected.length === givenBytes.length && timingSafeEqual(expected, givenBytes);
  });
}
