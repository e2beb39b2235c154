// The API's cache of verified access tokens: hits skip verification, entries end at the token's exp
// (or the cache's own time, whichever is first), the cache is bounded, and failures are never kept.
import { cachingVerifier } from '../../api/auth/verified-token-cache';
import { createTokenSigner, type TokenSigner } from '../../shared/auth/access-token';

const SECRET = 'test-secret-that-is-long-enough-for-hs256-keys';

/** The real signer, counting the verifications that reach it. */
function countingSigner(): TokenSigner & { verified: () => number } {
  const signer = createTokenSigner(SECRET, 3600);
  let calls = 0;
  return {
    sign: (origin, nowSeconds) => signer.sign(origin, nowSeconds),
    verify: (token) => {
      calls += 1;
      return signer.verify(token);
    },
    verified: () => calls,
  };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const ORG_7 = { organisationId: 7, apiKeyId: 70 };

describe('the verified-token cache', () => {
  it('answers a token it verified within its time without verifying again, and verifies again after', async () => {
    const signer = countingSigner();
    let clock = Date.now();
    const cached = cachingVerifier(signer, { maxEntries: 10, ttlMs: 60_000, nowMs: () => clock });
    const { token } = await signer.sign(ORG_7, nowSeconds());

    expect((await cached.verify(token)).org).toBe(7);
    expect((await cached.verify(token)).org).toBe(7);
    expect(signer.verified()).toBe(1);
    clock += 60_000;
    await cached.verify(token);
    expect(signer.verified()).toBe(2);
  });

  it("never keeps an entry up to the token's exp, even when its own time is longer", async () => {
    const signer = countingSigner();
    // Issued almost an hour ago: 30 s of life left, less than the cache's 60 s.
    const { token, payload } = await signer.sign(ORG_7, nowSeconds() - 3570);
    let clock = Date.now();
    const cached = cachingVerifier(signer, { maxEntries: 10, ttlMs: 60_000, nowMs: () => clock });

    await cached.verify(token);
    clock = payload.exp * 1000 - 1;
    await cached.verify(token);
    expect(signer.verified()).toBe(1);
    clock = payload.exp * 1000;
    await cached.verify(token);
    expect(signer.verified()).toBe(2);
  });

  it('holds at most maxEntries tokens, dropping the oldest first', async () => {
    const signer = countingSigner();
    const cached = cachingVerifier(signer, { maxEntries: 2, ttlMs: 60_000 });
    const tokens = await Promise.all(
      [1, 2, 3].map(async (org) => (await signer.sign({ organisationId: org, apiKeyId: org }, nowSeconds())).token),
    );

    for (const token of tokens) await cached.verify(token);
    expect(signer.verified()).toBe(3);
    await cached.verify(tokens[2]!);
    await cached.verify(tokens[1]!);
    expect(signer.verified()).toBe(3);
    await cached.verify(tokens[0]!);
    expect(signer.verified()).toBe(4);
  });

  it('never remembers a token that failed: a forged one fails every time', async () => {
    const signer = countingSigner();
    const cached = cachingVerifier(signer, { maxEntries: 10, ttlMs: 60_000 });
    const { token } = await createTokenSigner('another-secret-that-is-long-enough-for-hs256', 3600).sign(
      ORG_7,
      nowSeconds(),
    );

    for (let i = 0; i < 2; i++)
      await expect(cached.verify(token)).rejects.toMatchObject({ code: 'authentication_failed' });
    expect(signer.verified()).toBe(2);
  });

  it('is off with a size or time of 0', async () => {
    const signer = countingSigner();
    const { token } = await signer.sign(ORG_7, nowSeconds());
    for (const opts of [
      { maxEntries: 0, ttlMs: 60_000 },
      { maxEntries: 10, ttlMs: 0 },
    ]) {
      const cached = cachingVerifier(signer, opts);
      await cached.verify(token);
      await cached.verify(token);
    }
    expect(signer.verified()).toBe(4);
  });
});
