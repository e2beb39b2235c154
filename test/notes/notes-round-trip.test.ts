// One notes request is one transaction of at most two statements, sent in one round trip, with its
// run-ledger rows: counted message by message on the pool the app is given (test/helpers/pg-messages.ts).
import { WRITE_NOTES } from '../../shared/notes/note.repository';
import { createNotes } from '../../shared/notes/note.use-cases';
import { createTenant, type Tenant, type TestApp } from '../helpers/app';
import { explainFunctionOnFreshTables } from '../helpers/fresh-tables';
import { countMessages, type MessageCounter } from '../helpers/pg-messages';
import { startTenantApp } from '../helpers/tenant-app';
import { until } from '../helpers/until';
import { createTenantWithAccounts, importAccount, postNotes, storedNotes } from './notes.fixture';

/** What the notes write reads or writes. */
const WRITE_TABLES = [
  'notes',
  'accounts',
  'account_import_processes',
  'organisation_suppliers',
  'import_suppliers',
  'run_ledger',
];

describe('POST /v1/data-import/notes/create/ — one transaction, two statements, one round trip', () => {
  let app: TestApp;
  let tenant: Tenant;
  let counter: MessageCounter;

  beforeAll(async () => {
    ({ app, tenant } = await startTenantApp({}, {}, createTenantWithAccounts));
    counter = countMessages(app.db.pool, (text) => /FROM api_keys WHERE revoked_at/.test(text));
  });
  afterAll(() => app.close());

  const ledgerRows = (requestId: string) =>
    app.db.pool
      .query<{ outcome: string; code: string | null; items: number; supplier_code: string | null; xmin: string }>(
        `SELECT outcome, code, items, supplier_code, xmin::text FROM run_ledger WHERE request_id = $1 ORDER BY code`,
        [requestId],
      )
      .then((r) => r.rows);

  /** Posts, then waits until every connection is back in the pool (so a write after the answer is counted). */
  async function post(body: unknown) {
    counter.reset();
    const res = await postNotes(app, tenant.token, body);
    await until('the pool idle', () => (app.db.pool.idleCount === app.db.pool.totalCount ? true : undefined));
    return { res, sent: counter.sent(), requestId: res.headers.get('x-request-id')! };
  }

  it('stores a one-note request in one transaction of two statements, its ledger row in it', async () => {
    const account = await importAccount(app, tenant);
    const { res, sent, requestId } = await post({
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      notes: [{ body: 'one trip' }],
    });
    expect(res.status).toBe(201);
    // No BEGIN, COMMIT or SET: two statements and one Sync, the whole transaction.
    expect(sent).toEqual({ queries: [], parsed: [expect.any(String), expect.any(String)], executes: 2, syncs: 1 });
    const [note] = await storedNotes(app, account.id);
    const { rows } = await app.db.pool.query<{ xmin: string }>('SELECT xmin::text FROM notes WHERE id = $1', [
      note!.id,
    ]);
    expect(await ledgerRows(requestId)).toEqual([
      {
        outcome: 'written',
        code: 'NOTE_CREATION_SUCCESS',
        items: 1,
        supplier_code: tenant.supplier,
        xmin: rows[0]!.xmin,
      },
    ]);
  });

  it('decides a repeat inside the request and a stored note in the same statement, with their ledger rows', async () => {
    const account = await importAccount(app, tenant);
    const ref = { import_supplier: tenant.supplier, external_account_number: account.number };
    await post({ ...ref, notes: [{ body: 'stored' }] });
    const { res, sent, requestId } = await post({
      ...ref,
      notes: [
        { body: 'stored' },
        { body: 'new' },
        { body: 'new' },
        { body: 'new', created_at: '2020-01-01T00:00:00Z' },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.body.map((n: { status: string }) => n.status)).toEqual([
      'NOTE_ALREADY_EXISTS',
      'NOTE_CREATION_SUCCESS',
      'NOTE_ALREADY_EXISTS',
      'NOTE_CREATION_SUCCESS',
    ]);
    expect(sent.executes).toBe(2);
    expect(sent.syncs).toBe(1);
    expect((await storedNotes(app, account.id)).map((n) => n.body)).toEqual(['stored', 'new', 'new']);
    const rows = await ledgerRows(requestId);
    expect(rows.map(({ outcome, code, items }) => ({ outcome, code, items }))).toEqual([
      { outcome: 'skipped', code: 'NOTE_ALREADY_EXISTS', items: 2 },
      { outcome: 'written', code: 'NOTE_CREATION_SUCCESS', items: 2 },
    ]);
  });

  it('a dry run decides in the same two statements, stores no note and records its ledger row in them', async () => {
    const account = await importAccount(app, tenant);
    const { res, sent, requestId } = await post({
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      dry_run: true,
      notes: [{ body: 'dry' }, { body: 'dry' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.map((n: { status: string }) => n.status)).toEqual(['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS']);
    expect(sent).toEqual({ queries: [], parsed: [expect.any(String), expect.any(String)], executes: 2, syncs: 1 });
    expect(await storedNotes(app, account.id)).toEqual([]);
    expect((await ledgerRows(requestId)).map(({ outcome, items }) => ({ outcome, items }))).toEqual([
      { outcome: 'dry_run', items: 1 },
      { outcome: 'dry_run', items: 1 },
    ]);
  });

  it('answers 404 for an unknown account from the same two statements; the ledger row follows the answer', async () => {
    const { res, sent, requestId } = await post({
      import_supplier: tenant.supplier,
      external_account_number: 'NO-SUCH-ACCOUNT',
      notes: [{ body: 'nowhere' }],
    });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'account_not_found' });
    // The two statements in one transaction, then the refusal's ledger row in a statement of its own.
    // (and what the API does for any refusal: the supplier's visibility for the log line).
    expect(sent.parsed.slice(0, 2)).toEqual([
      expect.stringMatching(/pg_advisory_xact_lock/),
      expect.stringMatching(/write_notes\(/),
    ]);
    expect(sent.parsed.slice(2).filter((text) => /INSERT INTO run_ledger/.test(text))).toHaveLength(1);
    expect(await ledgerRows(requestId)).toEqual([
      expect.objectContaining({ outcome: 'refused', code: 'account_not_found', supplier_code: tenant.supplier }),
    ]);
  });

  it("answers 404 for another organisation's account, stores nothing and records no supplier", async () => {
    const other = await createTenantWithAccounts(app);
    const { res, requestId } = await post({
      import_supplier: other.supplier,
      external_account_number: 'IMPORTED',
      notes: [{ body: 'not yours' }],
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('account_not_found');
    const stored = await app.db.prisma.note.count({
      where: { account: { process: { supplierCode: other.supplier } } },
    });
    expect(stored).toBe(0);
    expect(await ledgerRows(requestId)).toEqual([
      expect.objectContaining({ code: 'account_not_found', supplier_code: null }),
    ]);
  });

  it.each(['Paused', 'Complete'] as const)(
    'answers 400 import_supplier_migration_not_ongoing for a %s supplier and stores nothing',
    async (status) => {
      const paused = await createTenant(app, {
        status,
        accounts: [{ external_account_number: 'IMPORTED', state: 'imported' }],
      });
      const res = await postNotes(app, paused.token, {
        import_supplier: paused.supplier,
        external_account_number: 'IMPORTED',
        notes: [{ body: 'too late' }],
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        detail: `Migration for import supplier ${paused.supplier} is ${status}.`,
        code: 'import_supplier_migration_not_ongoing',
        errors: [
          {
            attr: 'import_supplier',
            code: 'import_supplier_migration_not_ongoing',
            detail: `Migration for import supplier ${paused.supplier} is ${status}; it accepts no data.`,
          },
        ],
      });
      const stored = await app.db.prisma.note.count({
        where: { account: { process: { supplierCode: paused.supplier } } },
      });
      expect(stored).toBe(0);
    },
  );

  it('stores a note once when requests race, each waiting for the lock in its first statement', async () => {
    const account = await importAccount(app, tenant);
    const body = {
      import_supplier: tenant.supplier,
      external_account_number: account.number,
      notes: [{ body: 'race' }],
    };
    const answers = await Promise.all(Array.from({ length: 6 }, () => postNotes(app, tenant.token, body)));
    expect(answers.map((a) => a.status)).toEqual(Array(6).fill(201));
    expect(answers.filter((a) => a.body[0].status === 'NOTE_CREATION_SUCCESS')).toHaveLength(1);
    expect(await storedNotes(app, account.id)).toHaveLength(1);
  });

  it('bounds the lock wait: a request behind a held lock fails after the timeout and stores nothing', async () => {
    const account = await importAccount(app, tenant);
    const holder = await app.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `SELECT pg_advisory_xact_lock($1::int, hashtext(jsonb_build_array($2::text, $3::text)::text))`,
        [0x6e6f5465, tenant.supplier, account.number],
      );
      const request = {
        import_supplier: tenant.supplier,
        external_account_number: account.number,
        dry_run: false,
        notes: [{ body: 'late' }],
      };
      const deps = { db: app.db, config: app.config, statementTimeoutMs: 200 };
      await expect(createNotes(deps, tenant.report.organisations[0]!.id, request)).rejects.toMatchObject({
        code: '55P03',
      });
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await storedNotes(app, account.id)).toEqual([]);
  });

  it('reaches every table through an index in the plan its function keeps, made on small unanalysed tables (no sequential scan)', async () => {
    // On fresh copies: another file may have analysed this worker's tables. The function keeps the plan
    // it made on its first call, however large the tables grow: it must not read a small table whole.
    const plan = await explainFunctionOnFreshTables(app.db.pool, WRITE_TABLES, WRITE_NOTES);
    expect(plan).toMatch(
      // The dedup-key index (its copy is named after its expression, md5 of the key).
      /Index (Only )?Scan using notes_account_id_(dedup_key|md5)_idx|Bitmap Index Scan on notes_account_id_(dedup_key|md5)_idx/,
    );
    expect(plan).not.toMatch(/Seq Scan/);
  });

  it('answers 503 write_outcome_unknown when the connection is lost after the write went out, and stores nothing', async () => {
    const account = await importAccount(app, tenant);
    const holder = await app.db.pool.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(
        `SELECT pg_advisory_xact_lock($1::int, hashtext(jsonb_build_array($2::text, $3::text)::text))`,
        [0x6e6f5465, tenant.supplier, account.number],
      );
      const answer = postNotes(app, tenant.token, {
        import_supplier: tenant.supplier,
        external_account_number: account.number,
        notes: [{ body: 'cut off' }],
      });
      // The request's first statement waits for the lock: its server goes away.
      const waiting = await until('the request waiting for the note lock', async () => {
        const { rows } = await app.db.pool.query<{ pid: number }>(
          `SELECT pid FROM pg_stat_activity
            WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%pg_advisory_xact_lock%'
              AND pid <> $1`,
          [(holder as unknown as { processID: number }).processID],
        );
        return rows[0]?.pid;
      });
      await app.db.pool.query('SELECT pg_terminate_backend($1)', [waiting]);
      const res = await answer;
      expect(res.status).toBe(503);
      expect(res.body.code).toBe('write_outcome_unknown');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    expect(await storedNotes(app, account.id)).toEqual([]);
  });
});
