// Guessing API keys through obtainToken. The rate limit itself is tested in
// test/observability/health.test.ts ("limits obtainToken per client address"), and the equal answers
// for a revoked and an unknown key in test/auth/obtain-token.test.ts. Here: the lookup never compares
// secrets (a digest is looked up by an index, then compared in constant time), nothing tells which
// organisations exist, and a guessing client is cut off.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createApiKey, revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { digest } from '../../shared/auth/secrets';
import { createTenant, obtainToken, startTestApp, type Tenant, type TestApp } from '../helpers/app';

describe('API-key guessing against obtainToken', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ TOKEN_RATE_LIMIT_PER_MINUTE: '1000' });
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  const errorOf = (res: { body: any }) => res.body.errors?.[0]; // eslint-disable-line @typescript-eslint/no-explicit-any

  it('stores only a digest of a key and looks keys up by that digest, comparing in constant time', async () => {
    const rows = await app.db.prisma.$queryRaw<Record<string, unknown>[]>`
      SELECT k.* FROM api_keys k JOIN organisations o ON o.id = k.organisation_id WHERE o.name = ${`org-${tenant.supplier.replace('SUPPLIER_', '')}`}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]!.hash).toBe(digest(tenant.apiKey));
    expect(
      Object.values(rows[0]!).filter((v) => typeof v === 'string' && v.length > 8 && tenant.apiKey.includes(v)),
    ).toEqual([]);

    const useCase = readFileSync(path.join(__dirname, '../../shared/auth/auth.use-cases.ts'), 'utf8');
    const lookup = /obtainTokenWithApiKey[\s\S]*?\n}/.exec(useCase)![0];
    expect(lookup).toMatch(/const hash = digest\(apiKey\)/);
    expect(lookup).toMatch(/lockActiveApiKeyByDigest\([^)]*hash\)/);
    expect(lookup).toMatch(/digestsEqual\(key\.hash, hash\)/);
    expect(lookup).not.toMatch(/===\s*apiKey|apiKey\s*===/);
    const secrets = readFileSync(path.join(__dirname, '../../shared/auth/secrets.ts'), 'utf8');
    expect(secrets).toMatch(/timingSafeEqual/);
  });

  it('answers a revoked key, an unknown key, a deleted organisation’s key and a near-miss alike, in similar time', async () => {
    const revoked = await createApiKey(app.db, { organisation: `org-${tenant.supplier.replace('SUPPLIER_', '')}` });
    await revokeApiKey(app.db, { id: revoked.id });
    const doomed = await createTenant(app);
    await app.db.prisma.organisation.deleteMany({ where: { name: `org-${doomed.supplier.replace('SUPPLIER_', '')}` } });
    const nearMiss = `${tenant.apiKey.slice(0, -1)}${tenant.apiKey.endsWith('x') ? 'y' : 'x'}`;
    const candidates = { revoked: revoked.api_key, unknown: `dik_${'u'.repeat(40)}`, deleted: doomed.apiKey, nearMiss };

    const answers = await Promise.all(
      Object.values(candidates).map((key) => obtainToken(app.baseUrl, { APIKey: key })),
    );
    for (const res of answers) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual(answers[0]!.body);
    }
    expect(errorOf(answers[0]!).extensions.code).toBe('invalid_api_key');

    const timings: Record<string, number[]> = { revoked: [], unknown: [] };
    for (let i = 0; i < 40; i++) {
      for (const which of ['revoked', 'unknown'] as const) {
        const started = process.hrtime.bigint();
        await obtainToken(app.baseUrl, { APIKey: candidates[which] });
        timings[which]!.push(Number(process.hrtime.bigint() - started) / 1e6);
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const [r, u] = [median(timings.revoked!), median(timings.unknown!)];
    // One indexed lookup either way: the medians differ by noise, far less than a round trip.
    expect(Math.abs(r - u)).toBeLessThan(Math.max(10, 0.5 * Math.max(r, u)));
  });

  it('cuts a guessing client off with 429 once its per-address budget is spent, whatever keys it tries', async () => {
    const limited = await startTestApp({ TOKEN_RATE_LIMIT_PER_MINUTE: '5' });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++)
        statuses.push((await obtainToken(limited.baseUrl, { APIKey: `guess-${i}-${'g'.repeat(32)}` })).status);
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
      // Even the right key waits out the window: a guesser cannot tell a hit from the limit.
      const tenantHere = await createTenantNoSignIn(limited);
      expect((await obtainToken(limited.baseUrl, { APIKey: tenantHere })).status).toBe(429);
    } finally {
      await limited.close();
    }
  });
});

async function createTenantNoSignIn(app: TestApp): Promise<string> {
  const { applyFile } = await import('../../shared/admin/apply.use-case');
  const apiKey = `right-key-${Date.now()}-${'r'.repeat(32)}`;
  await applyFile(app.db, { organisations: [{ name: `right-${Date.now()}`, api_key: apiKey }] });
  return apiKey;
}
