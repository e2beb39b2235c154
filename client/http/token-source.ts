// Tokens for the data-import API, from the organisation API key: obtained once, refreshed before they
// expire, re-obtained with the key when the refresh token is gone. Refresh tokens are single use and a
// replayed one revokes the whole sign-in, so every renewal is single-flight: requests that find the
// same stale token share one renewal instead of each spending the refresh token.
import { FatalError, RefusedError, TransientError } from '../client-errors';
import { oneLine } from '../terminal-text';
import { readJson, type Fetcher } from './service-fetch';

const OBTAIN_TOKEN = `mutation($input: ObtainTokenInput!) {
  obtainToken(input: $input) { token payload refreshToken refreshExpiresIn } }`;

/**
 * Renew this long before the token's own expiry (at most a quarter of its lifetime, so a short-lived
 * token is not renewed on every request), so a request rarely leaves with a token about to lapse.
 */
const EARLY_MS = 30_000;

interface Session {
  token: string;
  refreshToken?: string;
  /** When to renew: EARLY_MS (or a quarter of the lifetime) before the token expires. */
  renewAt: number;
}

/** A token answer is a few hundred bytes; anything past this is not one. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export class TokenSource {
  private session?: Session;
  private renewing?: Promise<Session>;
  /** Until the first token arrives, a service that cannot be reached is a wrong address, not an outage. */
  private reached = false;
  /**
   * A sign-in that failed for good (a refused key, a redirect, a wrong address): every later caller gets
   * the same answer without asking again, so the run's first requests, started side by side, send one.
   */
  private failed?: FatalError;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly fetcher: Fetcher,
  ) {}

  /** A token valid for a while yet. */
  async token(): Promise<string> {
    const s = this.session;
    if (s && s.renewAt > Date.now()) return s.token;
    return (await this.renew(s?.token)).token;
  }

  /** Called after a 401 with the token that was refused; a renewal already done by another request is reused. */
  async renew(stale?: string): Promise<Session> {
    if (this.failed) throw this.failed;
    if (this.session && this.session.token !== stale) return this.session;
    this.renewing ??= this.obtain()
      .catch((err: unknown) => {
        if (err instanceof FatalError) this.failed = err;
        throw err;
      })
      .finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async obtain(): Promise<Session> {
    const refreshToken = this.session?.refreshToken;
    if (refreshToken) {
      const refreshed = await this.call({ refreshToken }).catch((err: unknown) => {
        // An expired, used or revoked refresh token: sign in again with the key.
        if (err instanceof RefusedError) return undefined;
        throw err;
      });
      if (refreshed) return (this.session = refreshed);
    }
    try {
      this.session = await this.call({ APIKey: this.apiKey });
      this.reached = true;
      return this.session;
    } catch (err) {
      if (err instanceof RefusedError)
        throw new FatalError(`the service refused the API key (${oneLine(err.code, 100)})`);
      const network = networkFailureCode(err);
      if (!this.reached && network !== undefined) {
        throw new FatalError(
          `cannot connect to ${this.baseUrl} (${network}): is the service running there, and are the host and ` +
            'port of --url (or DATA_IMPORT_URL) right?',
        );
      }
      throw err;
    }
  }

  private async call(input: { APIKey?: string; refreshToken?: string }): Promise<Session> {
    const res = await this.fetcher(`${this.baseUrl}/v1/graphql/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: OBTAIN_TOKEN, variables: { input } }),
    });
    if (res.status === 429 || res.status >= 500)
      throw new TransientError(`obtainToken answered ${res.status}`, res.headers.get('retry-after'));
    const body = (await readJson(res, MAX_ANSWER_BYTES)) as {
      data?: { obtainToken?: { token: string; payload?: { exp?: number; iat?: number }; refreshToken?: string } };
      errors?: { extensions?: { code?: string } }[];
    };
    if (typeof body !== 'object' || body === null || !('data' in body || 'errors' in body)) {
      if (res.status >= 400) throw notTheService(this.baseUrl, res.status, body);
      throw new TransientError(`obtainToken answered ${res.status} with a body that is not JSON`);
    }
    const got = body.data?.obtainToken;
    if (typeof got?.token !== 'string' || got.token === '') {
      const code = body.errors?.[0]?.extensions?.code;
      throw new RefusedError(typeof code === 'string' ? code : `http_${res.status}`);
    }
    const { exp, iat } = got.payload ?? {};
    const lifetime = typeof exp === 'number' && typeof iat === 'number' ? (exp - iat) * 1000 : 5 * 60_000;
    const expiresAt = typeof exp === 'number' ? exp * 1000 : Date.now() + lifetime;
    return { token: got.token, refreshToken: got.refreshToken, renewAt: expiresAt - Math.min(EARLY_MS, lifetime / 4) };
  }
}

/** The code of a failure to connect (fetch's TypeError and its cause), undefined for anything else. */
function networkFailureCode(err: unknown): string | undefined {
  if (!(err instanceof TypeError) || !/fetch failed/i.test(err.message)) return undefined;
  const cause = (err as { cause?: { code?: unknown } }).cause?.code;
  return typeof cause === 'string' ? cause.slice(0, 40) : 'fetch failed';
}

/**
 * A 4xx without a GraphQL body (an HTML page, `route_not_found`): the address reaches a web server, but
 * not the service's GraphQL endpoint, so a wrong --url rather than a refused key.
 */
function notTheService(baseUrl: string, status: number, body: unknown): FatalError {
  const code = (body as { code?: unknown } | undefined)?.code;
  const what = typeof code === 'string' ? oneLine(code, 60) : body === undefined ? 'not JSON' : 'not GraphQL';
  return new FatalError(
    `${baseUrl}/v1/graphql/ answered ${status} (${what}): that is not the data-import service's API; ` +
      '--url (or DATA_IMPORT_URL) is the address the service answers at, with no path after it',
  );
}
