// What a note answer echoes is what the account holds (issue 17 items 11 and 12): a note that already
// exists is answered with the stored note, flagged `matches_stored: false` when the one sent differs, and
// every note datetime is stored and answered at whole seconds in the spec's YYYY-MM-DDTHH:MM:SSZ, so an
// echo sent back finds the same note.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startTenantApp } from '../helpers/tenant-app';
import type { Tenant, TestApp } from '../helpers/app';
import { createTenantWithAccounts, importAccount, postNotes, storedNotes } from './notes.fixture';

const SPEC_DATETIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

describe('POST /v1/data-import/notes/create/ — answers show the stored note', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts)));
  afterAll(() => app.close());

  const post = (number: string, notes: unknown[]) =>
    postNotes(app, tenant.token, { import_supplier: tenant.supplier, external_account_number: number, notes });

  it('answers an existing note with other attachments with the stored ones and matches_stored: false', async () => {
    const account = await importAccount(app, tenant);
    const first = await post(account.number, [
      { body: 'letter', document_paths: [{ document_path: 'a.pdf' }], created_at: '2024-05-05T10:00:00Z' },
    ]);
    expect(first.body[0].status).toBe('NOTE_CREATION_SUCCESS');

    const res = await post(account.number, [{ body: 'letter', document_paths: [{ document_path: 'b.pdf' }] }]);

    expect(res.status).toBe(201);
    expect(res.body).toEqual([
      {
        created_at: '2024-05-05T10:00:00Z',
        body: 'letter',
        status: 'NOTE_ALREADY_EXISTS',
        matches_stored: false,
        document_paths: [{ document_path: 'a.pdf' }],
      },
    ]);
    // The status and the flag sit side by side on the item.
    expect(Object.keys(res.body[0]).slice(2, 4)).toEqual(['status', 'matches_stored']);
    const stored = await storedNotes(app, account.id);
    expect(stored.map((n) => (n.documents as { document_path: string }[]).map((d) => d.document_path))).toEqual([
      ['a.pdf'],
    ]);
  });

  it('echoes the stored flags of an existing note and flags the difference', async () => {
    const account = await importAccount(app, tenant);
    await post(account.number, [
      { body: 'pinned', is_pinned: true, unpin_at: '2030-01-01T00:00:00Z', external_id: 'N-1' },
    ]);

    const res = await post(account.number, [{ body: 'pinned', is_archived: true }]);

    expect(res.body).toEqual([
      {
        created_at: expect.stringMatching(SPEC_DATETIME),
        body: 'pinned',
        status: 'NOTE_ALREADY_EXISTS',
        matches_stored: false,
        is_pinned: true,
        unpin_at: '2030-01-01T00:00:00Z',
        external_id: 'N-1',
        is_archived: false,
      },
    ]);
  });

  it('has no matches_stored when the note sent is the stored one', async () => {
    const account = await importAccount(app, tenant);
    const note = { body: 'same', document_paths: [{ document_path: 'x.pdf' }], is_pinned: true, external_id: 'E' };
    await post(account.number, [note]);

    const res = await post(account.number, [note, { body: 'same' }]);

    expect(res.body[0]).toEqual({
      created_at: expect.stringMatching(SPEC_DATETIME),
      body: 'same',
      status: 'NOTE_ALREADY_EXISTS',
      document_paths: [{ document_path: 'x.pdf' }],
      is_pinned: true,
      external_id: 'E',
    });
    // Sent without its attachment and flags: the stored note is shown, and it differs.
    expect(res.body[1]).toMatchObject({ status: 'NOTE_ALREADY_EXISTS', matches_stored: false, is_pinned: true });
  });

  it('answers a repeat inside one request with the note the request created first', async () => {
    const account = await importAccount(app, tenant);
    const res = await post(account.number, [
      { body: 'twice', document_paths: [{ document_path: 'first.pdf' }] },
      { body: 'twice', document_paths: [{ document_path: 'second.pdf' }] },
    ]);

    expect(res.body[1]).toEqual({
      created_at: res.body[0].created_at,
      body: 'twice',
      status: 'NOTE_ALREADY_EXISTS',
      matches_stored: false,
      document_paths: [{ document_path: 'first.pdf' }],
    });
    expect(await storedNotes(app, account.id)).toHaveLength(1);
  });

  it('stamps a note sent without created_at with the current whole second, which sent back finds it', async () => {
    const account = await importAccount(app, tenant);
    const res = await post(account.number, [{ body: 'stamped now' }]);
    const echoed: string = res.body[0].created_at;
    expect(echoed).toMatch(SPEC_DATETIME);

    // A script keeps the echo in the spec's format and sends it back.
    const again = await post(account.number, [{ body: 'stamped now', created_at: `${echoed.slice(0, 19)}Z` }]);

    expect(again.body[0]).toEqual({ created_at: echoed, body: 'stamped now', status: 'NOTE_ALREADY_EXISTS' });
    const stored = await storedNotes(app, account.id);
    expect(stored.map((n) => n.createdAt.toISOString())).toEqual([`${echoed.slice(0, 19)}.000Z`]);
  });

  it('stores a sent fraction of a second cut off, so the echo and the sent value both find the note', async () => {
    const account = await importAccount(app, tenant);
    const res = await post(account.number, [
      { body: 'fraction', created_at: '2024-02-02T08:09:10.884Z', unpin_at: '2024-03-03T00:00:00.999+01:00' },
    ]);
    expect(res.body[0]).toMatchObject({ created_at: '2024-02-02T08:09:10Z', unpin_at: '2024-03-02T23:00:00Z' });

    const again = await post(account.number, [
      { body: 'fraction', created_at: '2024-02-02T08:09:10Z' },
      { body: 'fraction', created_at: '2024-02-02T08:09:10.5Z' },
    ]);
    expect(again.body.map((n: { status: string }) => n.status)).toEqual(['NOTE_ALREADY_EXISTS', 'NOTE_ALREADY_EXISTS']);
    expect(await storedNotes(app, account.id)).toHaveLength(1);
  });

  it('truncates the milliseconds of notes stored before (migration 20261126014700)', async () => {
    const account = await importAccount(app, tenant);
    await app.db.prisma.note.create({
      data: {
        accountId: account.id,
        body: 'from before',
        createdAt: new Date('2023-03-03T03:03:03.456Z'),
        unpinAt: new Date('2023-04-04T04:04:04.789Z'),
      },
    });
    const sql = await readFile(
      path.join(__dirname, '../../prisma/migrations/20261126014700_note_datetimes_whole_seconds/migration.sql'),
      'utf8',
    );
    await app.db.pool.query(sql);

    const [note] = await storedNotes(app, account.id);
    expect(note!.createdAt.toISOString()).toBe('2023-03-03T03:03:03.000Z');
    expect(note!.unpinAt!.toISOString()).toBe('2023-04-04T04:04:04.000Z');
    const res = await post(account.number, [{ body: 'from before', created_at: '2023-03-03T03:03:03Z' }]);
    expect(res.body[0]).toMatchObject({ created_at: '2023-03-03T03:03:03Z', status: 'NOTE_ALREADY_EXISTS' });
  });
});
