import { startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { createTenantWithAccounts, importAccount, postNotes, storedNotes } from './notes.fixture';
import { uniqueSuffix } from '../helpers/context';

// Each supplier needs a document root of its own.
const ROOT = `roots/acme-${uniqueSuffix()}`;

describe('POST /v1/data-import/notes/create/ — creating notes', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ DOCUMENT_BUCKET: 'bucket-under-test' });
    tenant = await createTenantWithAccounts(app, { documentRoot: ROOT });
  });
  afterAll(() => app.close());

  const envelope = (number: string, notes: unknown[]) => ({
    import_supplier: tenant.supplier,
    external_account_number: number,
    notes,
  });

  it("accepts the contract's example payload and answers each note in request order", async () => {
    const account = await importAccount(app, tenant);
    const before = Date.now();
    const res = await postNotes(app, tenant.token, {
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      notes: [
        { body: 'Some important pinned note.', is_pinned: true, unpin_at: '2020-06-01T12:00:00Z' },
        {
          created_at: '2020-02-01T12:00:00Z',
          body: 'Some important note with an attachment.',
          document_paths: [{ document_path: 'some/path/to/a/document.pdf' }],
        },
      ],
    });
    const after = Date.now();

    expect(res.status).toBe(201);
    expect(res.body).toEqual([
      {
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/),
        body: 'Some important pinned note.',
        status: 'NOTE_CREATION_SUCCESS',
        is_pinned: true,
        unpin_at: '2020-06-01T12:00:00Z',
      },
      {
        created_at: '2020-02-01T12:00:00Z',
        body: 'Some important note with an attachment.',
        status: 'NOTE_CREATION_SUCCESS',
        document_paths: [{ document_path: 'some/path/to/a/document.pdf' }],
      },
    ]);
    const defaulted = Date.parse(res.body[0].created_at);
    expect(defaulted).toBeGreaterThanOrEqual(before - 1000);
    expect(defaulted).toBeLessThanOrEqual(after);

    const notes = await storedNotes(app, account.id);
    expect(notes).toHaveLength(2);
    expect(notes[0]).toMatchObject({
      body: 'Some important pinned note.',
      documents: [],
      isPinned: true,
      unpinAt: new Date('2020-06-01T12:00:00Z'),
      isArchived: false,
      externalId: null,
    });
    expect(notes[0]!.createdAt.getTime()).toBe(defaulted);
    expect(notes[1]).toMatchObject({
      body: 'Some important note with an attachment.',
      createdAt: new Date('2020-02-01T12:00:00Z'),
      isPinned: false,
      unpinAt: null,
    });
  });

  it('stores each document at <bucket>/<supplier document root>/<path>', async () => {
    const account = await importAccount(app, tenant);
    const res = await postNotes(
      app,
      tenant.token,
      envelope(account.number, [
        { document_paths: [{ document_path: 'letters/2020/a.pdf' }, { document_path: 'b.pdf' }] },
      ]),
    );
    expect(res.status).toBe(201);
    const [note] = await storedNotes(app, account.id);
    expect(note!.documents).toEqual([
      { document_path: 'letters/2020/a.pdf', location: `bucket-under-test/${ROOT}/letters/2020/a.pdf` },
      { document_path: 'b.pdf', location: `bucket-under-test/${ROOT}/b.pdf` },
    ]);
  });

  it('answers a note with only attachments with an empty body and stores no body', async () => {
    const account = await importAccount(app, tenant);
    const res = await postNotes(
      app,
      tenant.token,
      envelope(account.number, [{ created_at: '2021-01-01T00:00:00Z', document_paths: [{ document_path: 'x.pdf' }] }]),
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual([
      {
        created_at: '2021-01-01T00:00:00Z',
        body: '',
        status: 'NOTE_CREATION_SUCCESS',
        document_paths: [{ document_path: 'x.pdf' }],
      },
    ]);
    expect((await storedNotes(app, account.id))[0]!.body).toBeNull();
  });

  it('reads created_at and unpin_at with offsets and fractions and stores and answers them in UTC whole seconds', async () => {
    const account = await importAccount(app, tenant);
    const res = await postNotes(
      app,
      tenant.token,
      envelope(account.number, [
        {
          body: 'offset',
          created_at: '2024-03-10T14:30:00+02:00',
          is_pinned: true,
          unpin_at: '2024-03-31T23:00:00.250-01:30',
        },
      ]),
    );
    expect(res.status).toBe(201);
    expect(res.body[0]).toMatchObject({ created_at: '2024-03-10T12:30:00Z', unpin_at: '2024-04-01T00:30:00Z' });
    const [note] = await storedNotes(app, account.id);
    expect(note!.createdAt.toISOString()).toBe('2024-03-10T12:30:00.000Z');
    expect(note!.unpinAt!.toISOString()).toBe('2024-04-01T00:30:00.000Z');
  });

  it('stores and echoes external_id and is_archived, and accepts unpin_at equal to created_at', async () => {
    const account = await importAccount(app, tenant);
    const note = {
      body: 'archived',
      created_at: '2022-05-05T05:05:05Z',
      unpin_at: '2022-05-05T05:05:05Z',
      is_pinned: false,
      external_id: 'legacy-42',
      is_archived: true,
    };
    const res = await postNotes(app, tenant.token, envelope(account.number, [note]));
    expect(res.status).toBe(201);
    expect(res.body).toEqual([{ ...note, status: 'NOTE_CREATION_SUCCESS' }]);
    expect((await storedNotes(app, account.id))[0]).toMatchObject({
      externalId: 'legacy-42',
      isArchived: true,
      isPinned: false,
      unpinAt: new Date('2022-05-05T05:05:05Z'),
    });
  });

  it('ignores unknown fields: they are neither echoed nor stored', async () => {
    const account = await importAccount(app, tenant);
    const res = await postNotes(app, tenant.token, {
      ...envelope(account.number, [
        { body: 'plain', colour: 'red', document_paths: [{ document_path: 'a.pdf', size: 3 }] },
      ]),
      legacy_number: 'IGNORED',
    });
    expect(res.status).toBe(201);
    expect(res.body[0]).not.toHaveProperty('colour');
    expect(res.body[0].document_paths).toEqual([{ document_path: 'a.pdf' }]);
    const [note] = await storedNotes(app, account.id);
    expect(note!.documents).toEqual([{ document_path: 'a.pdf', location: `bucket-under-test/${ROOT}/a.pdf` }]);
  });

  it('answers an empty list with 201 [] and stores nothing', async () => {
    const account = await importAccount(app, tenant);
    const res = await postNotes(app, tenant.token, envelope(account.number, []));
    expect(res.status).toBe(201);
    expect(res.body).toEqual([]);
    expect(await storedNotes(app, account.id)).toEqual([]);
  });

  it('accepts exactly MAX_ITEMS_PER_REQUEST notes in one request', async () => {
    const account = await importAccount(app, tenant);
    const notes = Array.from({ length: app.config.MAX_ITEMS_PER_REQUEST }, (_, i) => ({ body: `note ${i}` }));
    const res = await postNotes(app, tenant.token, envelope(account.number, notes));
    expect(res.status).toBe(201);
    expect(res.body).toHaveLength(notes.length);
    expect(res.body[999]).toMatchObject({ body: 'note 999', status: 'NOTE_CREATION_SUCCESS' });
    const stored = await storedNotes(app, account.id);
    expect(stored.map((n) => n.body)).toEqual(notes.map((n) => n.body));
  });
});
