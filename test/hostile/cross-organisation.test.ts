// One organisation reaching for another's accounts on every endpoint. The answer must be exactly the
// one for an account or supplier that does not exist (no oracle), and nothing may be written, queued
// or replayed for the intruder.
import { createTenant, request, type Tenant } from '../helpers/app';
import { WRITE_ENDPOINTS } from '../fuzz/endpoints';
import { rowCounts, startFuzzWorld, type FuzzWorld } from '../fuzz/fuzz-world';

describe('an organisation using another organisation’s supplier and accounts', () => {
  let world: FuzzWorld;
  let intruder: Tenant;
  let victim: { external: string; id: number };

  beforeAll(async () => {
    world = await startFuzzWorld();
    intruder = await createTenant(world.app);
    victim = await world.account();
  });
  afterAll(() => world.close());

  const as = (token: string, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
    request(world.app.baseUrl, method, path, { token, body, headers });

  it.each(WRITE_ENDPOINTS)(
    'POST $name: 404 exactly as for a missing account, nothing written or queued',
    async (endpoint) => {
      const payload = endpoint.valid(world, victim);
      const before = await rowCounts(world.app, victim.id);
      const intruderRequests = () =>
        world.app.db.prisma.requestResult.count({ where: { organisationId: intruder.report.organisations[0]!.id } });
      const queuedBefore = await intruderRequests();

      const theirs = await as(intruder.token, 'POST', endpoint.path, payload, {
        'idempotency-key': `steal-${endpoint.name}`,
      });
      const missing = await as(intruder.token, 'POST', endpoint.path, {
        ...payload,
        external_account_number: 'NO-SUCH-ACCOUNT',
      });
      const unknownSupplier = await as(intruder.token, 'POST', endpoint.path, {
        ...payload,
        import_supplier: 'NO_SUCH_SUPPLIER',
      });

      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual({ detail: expect.any(String), code: 'account_not_found' });
      expect(theirs.body).toEqual(missing.body);
      expect(theirs.body).toEqual(unknownSupplier.body);
      expect(await rowCounts(world.app, victim.id)).toEqual(before);
      expect(await intruderRequests()).toBe(queuedBefore);
      // The owner can write to it: the 404 was about who asked.
      expect((await as(world.tenant.token, 'POST', endpoint.path, endpoint.valid(world, victim))).status).toBe(201);
    },
  );

  it('GET account-transfer-status: 404 exactly as for a missing account', async () => {
    const path = (supplier: string, number: string) => `/v1/data-import/account-transfer-status/${supplier}/${number}/`;
    const theirs = await as(intruder.token, 'GET', path(world.tenant.supplier, victim.external));
    const missing = await as(intruder.token, 'GET', path(world.tenant.supplier, 'NO-SUCH-ACCOUNT'));
    const unknownSupplier = await as(intruder.token, 'GET', path('NO_SUCH_SUPPLIER', victim.external));

    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual(missing.body);
    expect(theirs.body).toEqual(unknownSupplier.body);
    expect((await as(world.tenant.token, 'GET', path(world.tenant.supplier, victim.external))).status).toBe(200);
  });

  it.each(['all', 'pending', 'imported'])(
    'GET %s-account-import-processes: 404 exactly as for a supplier that does not exist',
    async (kind) => {
      const path = (supplier: string) => `/v1/data-import/${kind}-account-import-processes/${supplier}/`;
      const theirs = await as(intruder.token, 'GET', path(world.tenant.supplier));
      const unknown = await as(intruder.token, 'GET', path('NO_SUCH_SUPPLIER'));

      expect(theirs.status).toBe(404);
      expect(theirs.body).toEqual(unknown.body);
      expect(JSON.stringify(theirs.body)).not.toContain(victim.external);
      expect((await as(world.tenant.token, 'GET', path(world.tenant.supplier))).status).toBe(200);
    },
  );

  it('does not replay another organisation’s answer to the same Idempotency-Key', async () => {
    const own = await world.account();
    const key = `shared-key-${own.external}`;
    const endpoint = WRITE_ENDPOINTS.find((e) => e.name === 'transactions')!;
    const first = await as(world.tenant.token, 'POST', endpoint.path, endpoint.valid(world, own), {
      'idempotency-key': key,
    });
    expect(first.status).toBe(201);

    const intruderAccount = await importedAccountOf(intruder);
    const second = await as(
      intruder.token,
      'POST',
      endpoint.path,
      { ...endpoint.valid(world, intruderAccount), import_supplier: intruder.supplier },
      { 'idempotency-key': key },
    );

    expect(second.status).toBe(201);
    expect(second.body).not.toEqual(first.body);
    expect(await world.app.db.prisma.transaction.count({ where: { accountId: intruderAccount.id } })).toBe(2);
  });

  async function importedAccountOf(tenant: Tenant) {
    const { applyFile } = await import('../../shared/admin/apply.use-case');
    const external = `INTRUDER-${Date.now()}`;
    const report = await applyFile(world.app.db, {
      accounts: [
        {
          import_supplier: tenant.supplier,
          external_account_number: external,
          state: 'imported',
          open_statement_from: '2019-10-01',
        },
      ],
    });
    const account = await world.app.db.prisma.account.findUniqueOrThrow({
      where: { platformAccountNumber: report.accounts[0]!.platform_account_number! },
    });
    return { external, id: account.id };
  }
});
