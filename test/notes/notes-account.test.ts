import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import { createTenantWithAccounts, postNotes } from './notes.fixture';

describe('POST /v1/data-import/notes/create/ — which accounts take notes', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts)));
  afterAll(() => app.close());

  const notesOfSupplier = (supplier: string) =>
    app.db.prisma.note.count({ where: { account: { process: { supplierCode: supplier } } } });

  it.each([
    ['only staged', 'STAGED'],
    ['being migrated', 'IN-PROGRESS'],
    ['a failed attempt', 'FAILED'],
    ['unknown', 'NO-SUCH-ACCOUNT'],
  ])('answers 404 account_not_found for an account that is %s', async (_what, number) => {
    const res = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      external_account_number: number,
      notes: [{ body: 'hello' }],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'account_not_found' });
  });

  it('finds the account by the deprecated account_number alias, alone or beside an equal external_account_number', async () => {
    const tenant = await createTenantWithAccounts(app);
    const alone = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      account_number: 'IMPORTED',
      notes: [{ body: 'by the alias' }],
    });
    const both = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      account_number: 'IMPORTED',
      external_account_number: 'IMPORTED',
      notes: [{ body: 'by both names' }],
    });
    expect([alone.status, both.status]).toEqual([201, 201]);
    expect(await notesOfSupplier(tenant.supplier)).toBe(2);
  });

  it.each([
    [
      'neither name',
      {},
      'external_account_number',
      'required',
      'Either account_number or external_account_number must be provided.',
    ],
    [
      'two different numbers',
      { account_number: 'IMPORTED', external_account_number: 'STAGED' },
      'account_number',
      'mutually_exclusive_field_required',
      expect.any(String),
    ],
  ])('refuses %s for the account with 400 and stores nothing', async (_what, ref, attr, code, detail) => {
    const tenant = await createTenantWithAccounts(app);
    const res = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      ...ref,
      notes: [{ body: 'x' }],
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'invalid_input', errors: [{ attr, code, detail }] });
    expect(await notesOfSupplier(tenant.supplier)).toBe(0);
  });

  it('answers 404 for an unknown supplier, even with an empty list', async () => {
    const res = await postNotes(app, tenant.token, {
      import_supplier: 'NO_SUCH_SUPPLIER',
      external_account_number: 'IMPORTED',
      notes: [],
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('account_not_found');
  });

  it("answers 404 for another organisation's imported account and stores nothing on it", async () => {
    const other = await createTenantWithAccounts(app);
    const res = await postNotes(app, other.token, {
      import_supplier: tenant.supplier,
      external_account_number: 'IMPORTED',
      notes: [{ body: 'intruder' }],
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('account_not_found');
    expect(await notesOfSupplier(tenant.supplier)).toBe(0);
  });

  it.each(['Paused', 'Complete'] as const)(
    'refuses notes with 400 import_supplier_migration_not_ongoing when the supplier is %s',
    async (status) => {
      const stopped = await createTenantWithAccounts(app, { status });
      const res = await postNotes(app, stopped.token, {
        import_supplier: stopped.supplier,
        external_account_number: 'IMPORTED',
        notes: [{ body: 'too late' }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: expect.stringContaining(status),
        code: 'import_supplier_migration_not_ongoing',
        errors: [
          { attr: 'import_supplier', code: 'import_supplier_migration_not_ongoing', detail: expect.any(String) },
        ],
      });
      expect(await notesOfSupplier(stopped.supplier)).toBe(0);
    },
  );
});
