import { request, type Tenant, type TestApp } from '../helpers/app';
import { startTenantApp } from '../helpers/tenant-app';
import { createTenantWithAccounts, importAccount, NOTES_PATH, postNotes, storedNotes } from './notes.fixture';

describe('POST /v1/data-import/notes/create/ — refused payloads', () => {
  let app: TestApp;
  let tenant: Tenant;
  let account: { number: string; id: number };

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts));
    account = await importAccount(app, tenant);
  });
  afterAll(() => app.close());

  const post = (notes: unknown[]) =>
    postNotes(app, tenant.token, { import_supplier: tenant.supplier, external_account_number: account.number, notes });

  /** Asserts a 400 with the standard body whose errors are exactly `errors` ({attr, code}), and nothing stored. */
  async function expectRefused(res: Awaited<ReturnType<typeof post>>, errors: { attr: string; code: string }[]) {
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String),
      code: expect.any(String),
      errors: errors.map((e) => ({ ...e, detail: expect.any(String) })),
    });
    expect(await storedNotes(app, account.id)).toEqual([]);
  }

  it('requires import_supplier, external_account_number and notes', async () => {
    const res = await postNotes(app, tenant.token, {});
    await expectRefused(res, [
      { attr: 'import_supplier', code: 'required' },
      { attr: 'notes', code: 'required' },
      { attr: 'external_account_number', code: 'required' },
    ]);
  });

  it('refuses a body that is not an object and notes that are not a list', async () => {
    await expectRefused(await postNotes(app, tenant.token, [1, 2]), [{ attr: 'non_field_errors', code: 'invalid' }]);
    const res = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      notes: { body: 'x' },
    });
    await expectRefused(res, [{ attr: 'notes', code: 'invalid' }]);
  });

  it('refuses a note with neither body nor document paths, on the note itself', async () => {
    const res = await post([{ body: 'fine' }, { is_pinned: true }, { document_paths: [] }]);
    await expectRefused(res, [
      { attr: 'notes.1', code: 'note_body_or_document_path_not_found' },
      { attr: 'notes.2', code: 'note_body_or_document_path_not_found' },
    ]);
  });

  it('refuses blank, null and non-string bodies with DRF codes', async () => {
    const res = await post([{ body: '' }, { body: null }, { body: 5 }]);
    await expectRefused(res, [
      { attr: 'notes.0.body', code: 'blank' },
      { attr: 'notes.1.body', code: 'null' },
      { attr: 'notes.2.body', code: 'invalid' },
    ]);
  });

  it('refuses a body of spaces only as blank, and a padded external_id as invalid', async () => {
    const res = await post([{ body: '  \t ' }, { body: 'b', external_id: ' N-1' }]);
    await expectRefused(res, [
      { attr: 'notes.0.body', code: 'blank' },
      { attr: 'notes.1.external_id', code: 'invalid' },
    ]);
  });

  it('refuses unpin_at before created_at', async () => {
    const res = await post([
      { body: 'pinned', is_pinned: true, created_at: '2024-01-02T00:00:00Z', unpin_at: '2024-01-01T23:59:59Z' },
    ]);
    await expectRefused(res, [{ attr: 'notes.0.unpin_at', code: 'note_unpin_at_earlier_than_creation_date' }]);
  });

  it('refuses impossible and malformed datetimes with 400, never 500', async () => {
    const res = await post([
      { body: 'a', created_at: '2026-02-30T10:00:00Z' },
      { body: 'b', created_at: '2026-01-01' },
      { body: 'c', created_at: '2026-01-01T24:00:00Z' },
      { body: 'd', unpin_at: '2026-01-01 10:00:00' },
      { body: 'e', created_at: 1700000000 },
    ]);
    await expectRefused(res, [
      { attr: 'notes.0.created_at', code: 'invalid' },
      { attr: 'notes.1.created_at', code: 'invalid' },
      { attr: 'notes.2.created_at', code: 'invalid' },
      { attr: 'notes.3.unpin_at', code: 'invalid' },
      { attr: 'notes.4.created_at', code: 'invalid' },
    ]);
  });

  it('refuses non-boolean flags, null optional fields and an over-long external_id', async () => {
    const res = await post([
      { body: 'a', is_pinned: 'yes' },
      { body: 'b', is_archived: null },
      { body: 'c', external_id: 'x'.repeat(256) },
    ]);
    await expectRefused(res, [
      { attr: 'notes.0.is_pinned', code: 'invalid' },
      { attr: 'notes.1.is_archived', code: 'null' },
      { attr: 'notes.2.external_id', code: 'max_length' },
    ]);
  });

  it('requires document_path inside each provided document', async () => {
    const res = await post([{ body: 'a', document_paths: [{ path: 'a.pdf' }] }]);
    await expectRefused(res, [{ attr: 'notes.0.document_paths.0.document_path', code: 'required' }]);
  });

  it.each([
    ['a parent segment', '../secret.pdf'],
    ['a parent segment further in', 'a/../../b.pdf'],
    ['a leading slash', '/etc/passwd'],
    ['a backslash', 'a\\..\\b.pdf'],
    ['a control character', 'a\u0000b.pdf'],
    ['a newline', 'a\nb.pdf'],
    ['an empty segment', 'a//b.pdf'],
    ['a dot segment', 'a/./b.pdf'],
    ['a trailing slash', 'a/'],
    ['nothing', ''],
    ['more than 1024 characters', `${'a'.repeat(1021)}.pdf`],
  ])('refuses a document path with %s', async (_what, path) => {
    const res = await post([{ body: 'a', document_paths: [{ document_path: 'fine.pdf' }, { document_path: path }] }]);
    await expectRefused(res, [{ attr: 'notes.0.document_paths.1.document_path', code: 'invalid_document_path' }]);
  });

  it('accepts a document path of exactly 1024 characters', async () => {
    const other = await importAccount(app, tenant);
    const res = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      external_account_number: other.number,
      notes: [{ document_paths: [{ document_path: `${'a'.repeat(1020)}.pdf` }] }],
    });
    expect(res.status).toBe(201);
  });

  it('stores nothing when one note of many is invalid', async () => {
    const res = await post([{ body: 'good 1' }, { body: 'good 2' }, { body: 'bad', created_at: 'yesterday' }]);
    await expectRefused(res, [{ attr: 'notes.2.created_at', code: 'invalid' }]);
  });

  it('refuses more than MAX_ITEMS_PER_REQUEST notes with max_length on notes', async () => {
    const notes = Array.from({ length: app.config.MAX_ITEMS_PER_REQUEST + 1 }, (_, i) => ({ body: `n${i}` }));
    await expectRefused(await post(notes), [{ attr: 'notes', code: 'max_length' }]);
  });

  it('validates the body before looking for the account (400, not 404)', async () => {
    const res = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      external_account_number: 'NO-SUCH-ACCOUNT',
      notes: [{}],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ attr: 'notes.0', code: 'note_body_or_document_path_not_found' }),
    ]);
  });

  it('refuses a request without a token before anything else', async () => {
    const res = await request(app.baseUrl, 'POST', NOTES_PATH, { body: {} });
    expect(res.status).toBe(401);
  });
});
