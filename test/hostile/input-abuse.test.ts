// Path traversal in statement paths (note document paths: test/notes/notes-validation.test.ts), SQL-
// looking text stored literally, and oversize bodies and item arrays.
import { request } from '../helpers/app';
import { NOTES, STATEMENTS, TRANSACTIONS, WRITE_ENDPOINTS } from '../fuzz/endpoints';
import { rowCounts, startFuzzWorld, type FuzzWorld } from '../fuzz/fuzz-world';

const SQLISH = [
  "'; DROP TABLE notes; --",
  '$1',
  '\\',
  "' OR '1'='1",
  '"; SELECT pg_sleep(5); --',
  '$$ $tag$',
  '%',
  '_',
  "\\'",
  "E'\\x00'",
];

describe('hostile input', () => {
  let world: FuzzWorld;
  let documentRoot: string;

  beforeAll(async () => {
    world = await startFuzzWorld({ MAX_ITEMS_PER_REQUEST: '50', BODY_LIMIT_BYTES: String(256 * 1024) });
    const supplier = await world.app.db.prisma.importSupplier.findUniqueOrThrow({
      where: { code: world.tenant.supplier },
    });
    documentRoot = supplier.documentRoot;
  });
  afterAll(() => world.close());

  const statementWith = (statement_path: string) => ({
    bill_period_from_date: '2019-01-01',
    bill_period_to_date: '2019-01-31',
    statement_id: `S-${statement_path}`.slice(0, 200),
    statement_path,
  });

  it.each([
    '../secret.pdf',
    'a/../../b.pdf',
    '..',
    './a.pdf',
    '/etc/passwd',
    'a//b.pdf',
    'a\\..\\b.pdf',
    '..\\b.pdf',
    'a/\u0000/b.pdf',
    'a/..\u0000/b.pdf',
    'a\n/b.pdf',
    '',
    '%2e%2e/secret.pdf',
    '%2E%2E%2Fsecret.pdf',
    '..%2fsecret.pdf',
    'a/%2e/b.pdf',
    '%252e%252e/secret.pdf',
    '%c0%ae%c0%ae/secret.pdf',
    'a%5c..%5cb.pdf',
    'a/%00/b.pdf',
    '\u2024\u2024/secret.pdf',
    '\uff0e\uff0e/secret.pdf',
    '\ufe52\ufe52/secret.pdf',
    '\u3002\u3002/secret.pdf',
    '\u2025/secret.pdf',
    '.\u200b./secret.pdf',
    '.. /secret.pdf',
    '.../x.pdf',
  ])('refuses statement_path %j with 400 invalid_document_path and stores nothing', async (statementPath) => {
    const account = await world.account();
    const res = await world.post(STATEMENTS.path, {
      ...STATEMENTS.valid(world, account),
      statements: [statementWith(statementPath)],
    });

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { attr: 'statements.0.statement_path', code: 'invalid_document_path', detail: expect.any(String) },
    ]);
    expect((await rowCounts(world.app, account.id)).statements).toBe(0);
  });

  it.each(['..a/b.pdf', 'a..b/c.pdf', '100%.pdf', 'a%20b.pdf', '\u00e9t\u00e9/r\u00e9sum\u00e9.pdf', '.hidden/a.pdf'])(
    'keeps %j literally, under the supplier root: a name with dots or percent-encoded text that decodes to no dot segment',
    async (statementPath) => {
      const account = await world.account();
      const res = await world.post(STATEMENTS.path, {
        ...STATEMENTS.valid(world, account),
        statements: [statementWith(statementPath)],
      });

      expect(res.status).toBe(201);
      const [stored] = await world.app.db.prisma.historicalStatement.findMany({ where: { accountId: account.id } });
      expect(stored!.statementPath).toBe(statementPath);
      expect(stored!.storageLocation).toBe(`${world.app.config.DOCUMENT_BUCKET}/${documentRoot}/${statementPath}`);
      expect(stored!.storageLocation!.split('/')).not.toContain('..');
    },
  );

  it.each(SQLISH)('stores %j literally in every text field and reads it back equal', async (text) => {
    const account = await world.account();
    const note = await world.post(NOTES.path, {
      ...NOTES.valid(world, account),
      notes: [{ body: text, external_id: text }],
    });
    const statement = await world.post(STATEMENTS.path, {
      ...STATEMENTS.valid(world, account),
      statements: [{ ...statementWith('s.pdf'), statement_id: text, number: text }],
    });
    const transaction = await world.post(TRANSACTIONS.path, {
      ...TRANSACTIONS.valid(world, account),
      transactions: [
        {
          transaction_id: text,
          transaction_date: '2019-10-04',
          amount: '1.00',
          type: 'PAYMENT',
          reference: text,
          note: text,
        },
      ],
    });
    expect([note.status, statement.status, transaction.status]).toEqual([201, 201, 201]);

    const [n] = await world.app.db.prisma.note.findMany({ where: { accountId: account.id } });
    const [s] = await world.app.db.prisma.historicalStatement.findMany({ where: { accountId: account.id } });
    const [t] = await world.app.db.prisma.transaction.findMany({ where: { accountId: account.id } });
    expect([n!.body, n!.externalId, s!.statementId, s!.number, t!.transactionId, t!.reference, t!.note]).toEqual(
      Array(7).fill(text),
    );
    // Reads that take it in the path find nothing rather than something else.
    const status = await request(
      world.app.baseUrl,
      'GET',
      `/v1/data-import/account-transfer-status/${world.tenant.supplier}/${encodeURIComponent(text)}/`,
      { token: world.tenant.token },
    );
    expect(status.status).toBe(404);
    expect(await world.app.db.prisma.note.count({ where: { accountId: account.id } })).toBe(1);
  });

  it('answers a body over BODY_LIMIT_BYTES with 413 request_too_large and writes nothing', async () => {
    const account = await world.account();
    const res = await world.post(NOTES.path, {
      ...NOTES.valid(world, account),
      notes: [{ body: 'x'.repeat(300 * 1024) }],
    });

    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: expect.any(String), code: 'request_too_large' });
    expect(await rowCounts(world.app, account.id)).toEqual({
      notes: 0,
      transactions: 0,
      statements: 0,
      instructions: 0,
      periods: 1,
    });
  });

  it.each(WRITE_ENDPOINTS.filter((e) => e.name !== 'payment-instruction'))(
    'refuses $name with MAX_ITEMS_PER_REQUEST + 1 items with 400 max_length on the array, writing and queuing nothing',
    async (endpoint) => {
      const account = await world.account();
      const valid = endpoint.valid(world, account);
      const field = Object.keys(valid).find((k) => Array.isArray(valid[k]))!;
      const one = (valid[field] as Record<string, unknown>[])[0]!;
      const items = Array.from({ length: 51 }, (_, i) => ({
        ...one,
        statement_id: `S-${i}`,
        transaction_id: `T-${i}`,
        body: `note ${i}`,
      }));
      const mine = { where: { organisationId: world.tenant.report.organisations[0]!.id } };
      const before = await world.app.db.prisma.requestResult.count(mine);

      const res = await world.post(endpoint.path, { ...valid, [field]: items });

      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ attr: field, code: 'max_length', detail: expect.any(String) }]);
      expect(await rowCounts(world.app, account.id)).toEqual({
        notes: 0,
        transactions: 0,
        statements: 0,
        instructions: 0,
        periods: 1,
      });
      expect(await world.app.db.prisma.requestResult.count(mine)).toBe(before);
    },
  );
});
