import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import { createTenantWithAccounts, importAccount, postNotes, storedNotes } from './notes.fixture';

describe('POST /v1/data-import/notes/create/ — a note is created only once', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts)));
  afterAll(() => app.close());

  const post = (number: string, notes: unknown[]) =>
    postNotes(app, tenant.token, { import_supplier: tenant.supplier, external_account_number: number, notes });
  const statuses = (res: { body: { status: string }[] }) => res.body.map((r) => r.status);

  it('answers NOTE_ALREADY_EXISTS for every note of a repeated request and stores nothing more', async () => {
    const account = await importAccount(app, tenant);
    const notes = [{ body: 'first' }, { body: 'second', created_at: '2020-01-01T00:00:00Z' }];
    expect(statuses(await post(account.number, notes))).toEqual(['NOTE_CREATION_SUCCESS', 'NOTE_CREATION_SUCCESS']);
    const again = await post(account.number, notes);
    expect(again.status).toBe(201);
    expect(again.body).toEqual([
      { created_at: expect.any(String), body: 'first', status: 'NOTE_ALREADY_EXISTS' },
      { created_at: '2020-01-01T00:00:00Z', body: 'second', status: 'NOTE_ALREADY_EXISTS' },
    ]);
    expect(await storedNotes(app, account.id)).toHaveLength(2);
  });

  it('without created_at, matches a note with the same body whenever it was created', async () => {
    const account = await importAccount(app, tenant);
    await post(account.number, [{ body: 'dated', created_at: '2019-07-07T07:07:07Z' }]);
    expect(statuses(await post(account.number, [{ body: 'dated' }]))).toEqual(['NOTE_ALREADY_EXISTS']);
    expect(await storedNotes(app, account.id)).toHaveLength(1);
  });

  it('with created_at, matches only a note with the same body at the same instant, whatever the offset', async () => {
    const account = await importAccount(app, tenant);
    await post(account.number, [{ body: 'timed', created_at: '2019-07-07T07:07:07Z' }]);
    const res = await post(account.number, [
      { body: 'timed', created_at: '2019-07-07T09:07:07+02:00' },
      { body: 'timed', created_at: '2019-07-07T07:07:08Z' },
    ]);
    expect(statuses(res)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_CREATION_SUCCESS']);
    expect((await storedNotes(app, account.id)).map((n) => n.createdAt.toISOString())).toEqual([
      '2019-07-07T07:07:07.000Z',
      '2019-07-07T07:07:08.000Z',
    ]);
  });

  it('treats a repeat inside one request as existing, with the same created_at rule', async () => {
    const account = await importAccount(app, tenant);
    const res = await post(account.number, [
      { body: 'twice' },
      { body: 'twice' },
      { body: 'at times', created_at: '2020-01-01T00:00:00Z' },
      { body: 'at times', created_at: '2020-01-02T00:00:00Z' },
      { body: 'at times', created_at: '2020-01-01T00:00:00Z' },
      { body: 'at times' },
    ]);
    expect(statuses(res)).toEqual([
      'NOTE_CREATION_SUCCESS',
      'NOTE_ALREADY_EXISTS',
      'NOTE_CREATION_SUCCESS',
      'NOTE_CREATION_SUCCESS',
      'NOTE_ALREADY_EXISTS',
      'NOTE_ALREADY_EXISTS',
    ]);
    expect((await storedNotes(app, account.id)).map((n) => n.body)).toEqual(['twice', 'at times', 'at times']);
  });

  it('compares bodies only: the same body with other attachments is the same note', async () => {
    const account = await importAccount(app, tenant);
    await post(account.number, [{ body: 'with files', document_paths: [{ document_path: 'a.pdf' }] }]);
    const res = await post(account.number, [{ body: 'with files', document_paths: [{ document_path: 'b.pdf' }] }]);
    expect(statuses(res)).toEqual(['NOTE_ALREADY_EXISTS']);
  });

  it('compares notes without a body by their document paths', async () => {
    const account = await importAccount(app, tenant);
    const a = { document_paths: [{ document_path: 'scan/a.pdf' }] };
    const b = { document_paths: [{ document_path: 'scan/b.pdf' }] };
    expect(statuses(await post(account.number, [a, b, a]))).toEqual([
      'NOTE_CREATION_SUCCESS',
      'NOTE_CREATION_SUCCESS',
      'NOTE_ALREADY_EXISTS',
    ]);
    expect(statuses(await post(account.number, [b, { body: '["scan/a.pdf"]' }]))).toEqual([
      'NOTE_ALREADY_EXISTS',
      'NOTE_CREATION_SUCCESS',
    ]);
    expect(await storedNotes(app, account.id)).toHaveLength(3);
  });

  it('finds long bodies again (the index holds a digest, the comparison is exact)', async () => {
    const account = await importAccount(app, tenant);
    const long = 'x'.repeat(20_000);
    await post(account.number, [{ body: long }]);
    expect(statuses(await post(account.number, [{ body: long }, { body: `${long}y` }]))).toEqual([
      'NOTE_ALREADY_EXISTS',
      'NOTE_CREATION_SUCCESS',
    ]);
  });

  it("does not look at other accounts' notes", async () => {
    const one = await importAccount(app, tenant);
    const two = await importAccount(app, tenant);
    await post(one.number, [{ body: 'shared text' }]);
    expect(statuses(await post(two.number, [{ body: 'shared text' }]))).toEqual(['NOTE_CREATION_SUCCESS']);
  });

  it('creates each note exactly once when identical requests arrive concurrently', async () => {
    const account = await importAccount(app, tenant);
    // Enough notes per request that the transactions overlap (without the account lock they do create twice).
    const notes = Array.from({ length: 300 }, (_, i) => ({ body: `raced ${i}` }));
    const responses = await Promise.all(Array.from({ length: 16 }, () => post(account.number, notes)));
    expect(responses.map((r) => r.status)).toEqual(Array(16).fill(201));
    const created = responses.flatMap((r) => statuses(r)).filter((s) => s === 'NOTE_CREATION_SUCCESS');
    expect(created).toHaveLength(notes.length);
    expect(await storedNotes(app, account.id)).toHaveLength(notes.length);
  });
});
