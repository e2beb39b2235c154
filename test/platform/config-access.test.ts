// Configuration of access and listeners: the production-safe defaults, the token lifetime's cap, and
// time-outs Node would refuse stopped at boot with a line naming the variable.
import { loadConfig } from '../../shared/platform/config';

describe('access and listener configuration', () => {
  it('defaults the staff listener to loopback and the listener time-outs to values fit for this API', () => {
    expect(loadConfig({})).toMatchObject({
      STAFF_HOST: '127.0.0.1',
      TOKEN_REVOCATION_REFRESH_MS: 1000,
      HTTP_HEADERS_TIMEOUT_MS: 10_000,
      HTTP_REQUEST_TIMEOUT_MS: 60_000,
      HTTP_KEEP_ALIVE_TIMEOUT_MS: 5_000,
      HTTP_MAX_CONNECTIONS: 2048,
    });
  });

  it('caps TOKEN_TTL_SECONDS at an hour: a revocation is remembered only that long', () => {
    expect(loadConfig({ TOKEN_TTL_SECONDS: '3600' }).TOKEN_TTL_SECONDS).toBe(3600);
    expect(() => loadConfig({ TOKEN_TTL_SECONDS: '3601' })).toThrow(/TOKEN_TTL_SECONDS: /);
  });

  it('refuses a headers time-out longer than the request time-out, and a revocation refresh past 10 s', () => {
    expect(() => loadConfig({ HTTP_HEADERS_TIMEOUT_MS: '30000', HTTP_REQUEST_TIMEOUT_MS: '20000' })).toThrow(
      /HTTP_HEADERS_TIMEOUT_MS: must not exceed HTTP_REQUEST_TIMEOUT_MS/,
    );
    expect(() => loadConfig({ TOKEN_REVOCATION_REFRESH_MS: '60000' })).toThrow(/TOKEN_REVOCATION_REFRESH_MS: /);
  });
});
