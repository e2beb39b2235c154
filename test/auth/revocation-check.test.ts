// The API process's copy of the revocation list: read again once it is refreshMs old, one read shared
// by the requests that arrive meanwhile, a failed read never kept, and a revoked key or disabled
// organisation refused with 401 authentication_failed.
import { revocationCheck } from '../../api/auth/revocation-check';
import type { AccessTokenClaims } from '../../shared/auth/access-token';
import type { Revocations } from '../../shared/auth/revocation.use-cases';

const claims = (org: number, key: number): AccessTokenClaims => ({
  sub: `organisation:${org}`,
  org,
  key,
  iat: 0,
  exp: 0,
  iss: 'data-import-service',
  aud: 'data-import-api',
});

function list(keys: number[] = [], organisations: number[] = []): Revocations {
  return { apiKeyIds: new Set(keys), organisationIds: new Set(organisations) };
}

describe('the revocation check', () => {
  it('refuses a revoked key or a disabled organisation with 401 authentication_failed, and lets others pass', async () => {
    const check = revocationCheck({ load: async () => list([11], [2]), refreshMs: 1000 });

    await expect(check(claims(1, 10))).resolves.toBeUndefined();
    await expect(check(claims(1, 11))).rejects.toMatchObject({ status: 401, code: 'authentication_failed' });
    await expect(check(claims(2, 20))).rejects.toMatchObject({ status: 401, code: 'authentication_failed' });
  });

  it('reads the list again once its copy is refreshMs old, and not before', async () => {
    let clock = 1_000_000;
    let current = list();
    let reads = 0;
    const check = revocationCheck({
      load: async () => {
        reads += 1;
        return current;
      },
      refreshMs: 1000,
      nowMs: () => clock,
    });

    await check(claims(1, 10));
    current = list([10]);
    clock += 999;
    await expect(check(claims(1, 10))).resolves.toBeUndefined();
    expect(reads).toBe(1);
    clock += 1;
    await expect(check(claims(1, 10))).rejects.toMatchObject({ code: 'authentication_failed' });
    expect(reads).toBe(2);
  });

  it('shares one read among the requests that arrive while it runs', async () => {
    let reads = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const check = revocationCheck({
      load: async () => {
        reads += 1;
        await gate;
        return list([10]);
      },
      refreshMs: 1000,
    });

    const pending = [claims(1, 10), claims(1, 12), claims(1, 13)].map((c) =>
      check(c).then(
        () => 'ok',
        () => 'refused',
      ),
    );
    release();

    expect(await Promise.all(pending)).toEqual(['refused', 'ok', 'ok']);
    expect(reads).toBe(1);
  });

  it('does not keep a failed read: the waiting requests fail and the next one reads again', async () => {
    let fail = true;
    const check = revocationCheck({
      load: async () => {
        if (fail) throw new Error('database away');
        return list();
      },
      refreshMs: 60_000,
    });

    await expect(check(claims(1, 10))).rejects.toThrow('database away');
    fail = false;
    await expect(check(claims(1, 10))).resolves.toBeUndefined();
  });
});
