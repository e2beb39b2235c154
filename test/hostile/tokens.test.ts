// Tokens an attacker can make without the signing secret, beyond test/auth/authenticate.test.ts (which
// covers garbage, tampered payload and signature, alg none, another secret, expiry): algorithm
// confusion with a public key, asymmetric algorithms, header tricks, oversized headers, and the token
// of an organisation that no longer exists.
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT, exportJWK } from 'jose';
import { obtainToken, request } from '../helpers/app';
import { NOTES } from '../fuzz/endpoints';
import { rowCounts, startFuzzWorld, type FuzzWorld } from '../fuzz/fuzz-world';

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('hostile access tokens', () => {
  let world: FuzzWorld;
  let organisationId: number;

  beforeAll(async () => {
    world = await startFuzzWorld();
    organisationId = world.tenant.report.organisations[0]!.id;
  });
  afterAll(() => world.close());

  const list = (authorization: string) =>
    request(world.app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${world.tenant.supplier}/`, {
      headers: { authorization },
    });

  const claims = () => {
    const now = Math.floor(Date.now() / 1000);
    return {
      org: organisationId,
      sub: `organisation:${organisationId}`,
      iss: 'data-import-service',
      aud: 'data-import-api',
      iat: now,
      exp: now + 600,
    };
  };

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();

  const attacks: [string, () => Promise<string>][] = [
    [
      'HS256 signed with an RSA public key as the HMAC secret (algorithm confusion)',
      () => new SignJWT(claims()).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(publicPem)),
    ],
    [
      'RS256 signed with an attacker key',
      () => new SignJWT(claims()).setProtectedHeader({ alg: 'RS256' }).sign(privateKey),
    ],
    [
      'RS256 with the attacker public key embedded in the header (jwk injection)',
      async () =>
        new SignJWT(claims()).setProtectedHeader({ alg: 'RS256', jwk: await exportJWK(publicKey) }).sign(privateKey),
    ],
    [
      'a jku and kid pointing elsewhere',
      () =>
        new SignJWT(claims())
          .setProtectedHeader({ alg: 'HS256', jku: 'http://127.0.0.1:1/keys', kid: '../../dev/null' })
          .sign(new TextEncoder().encode('x'.repeat(32))),
    ],
    ['alg "None" in another case', async () => `${b64url({ alg: 'None', typ: 'JWT' })}.${b64url(claims())}.`],
    [
      'an unsigned token with a signature of the right length',
      async () => `${b64url({ alg: 'HS256' })}.${b64url(claims())}.${'A'.repeat(43)}`,
    ],
    [
      'a JWE-shaped token (five parts)',
      async () => `${b64url({ alg: 'dir', enc: 'A256GCM' })}..AAAA.${b64url(claims())}.AAAA`,
    ],
    [
      'a header of 8 KB',
      async () => `${b64url({ alg: 'HS256', pad: 'p'.repeat(6_000) })}.${b64url(claims())}.${'A'.repeat(43)}`,
    ],
  ];

  it.each(attacks)('refuses %s with 401 authentication_failed', async (_label, make) => {
    const res = await list(`Token ${await make()}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'authentication_failed' });
  });

  it('refuses an Authorization header past the server limit before any code of ours runs (431, no body parsed)', async () => {
    const res = await list(`Token ${'A'.repeat(64 * 1024)}`);
    expect(res.status).toBe(431);
  });

  it('gives the token of a deleted organisation nothing: reads and writes are 404 as for a stranger, its refresh token is dead', async () => {
    const victim = await world.account();
    const doomed = await startDoomedOrganisation(world);
    await world.app.db.prisma.organisation.delete({ where: { id: doomed.organisationId } });
    const before = await rowCounts(world.app, victim.id);

    const read = await request(
      world.app.baseUrl,
      'GET',
      `/v1/data-import/all-account-import-processes/${world.tenant.supplier}/`,
      { token: doomed.token },
    );
    const write = await request(world.app.baseUrl, 'POST', NOTES.path, {
      token: doomed.token,
      body: NOTES.valid(world, victim),
    });
    const refresh = await obtainToken(world.app.baseUrl, { refreshToken: doomed.refreshToken });

    expect([read.status, read.body.code]).toEqual([404, 'import_supplier_not_found']);
    expect([write.status, write.body.code]).toEqual([404, 'account_not_found']);
    expect(refresh.body.errors?.[0]?.extensions?.code).toBe('invalid_refresh_token');
    expect(await rowCounts(world.app, victim.id)).toEqual(before);
  });
});

/** An organisation that may use the world's supplier, signed in (token and refresh token). */
async function startDoomedOrganisation(world: FuzzWorld) {
  const { applyFile } = await import('../../shared/admin/apply.use-case');
  const apiKey = `doomed-${Date.now()}-${'d'.repeat(32)}`;
  const report = await applyFile(world.app.db, {
    organisations: [{ name: `doomed-${Date.now()}`, api_key: apiKey, suppliers: [world.tenant.supplier] }],
  });
  const signedIn = (await obtainToken(world.app.baseUrl, { APIKey: apiKey })).body.data.obtainToken;
  // Before the deletion the organisation does see the supplier: the 404s afterwards are the deletion's.
  const before = await request(
    world.app.baseUrl,
    'GET',
    `/v1/data-import/all-account-import-processes/${world.tenant.supplier}/`,
    { token: signedIn.token },
  );
  expect(before.status).toBe(200);
  return {
    organisationId: report.organisations[0]!.id,
    token: signedIn.token as string,
    refreshToken: signedIn.refreshToken as string,
  };
}
