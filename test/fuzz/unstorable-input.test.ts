// Found by the fuzz properties: text PostgreSQL cannot hold (NUL), text UTF-8 cannot carry (lone
// surrogates: stored as U+FFFD), JSON nested past what JSON.stringify survives, and %-sequences that
// are not UTF-8 in a path answered 500 (for transactions: a job retried for nothing, then 500).
import { request } from '../helpers/app';
import { NOTES, PAYMENT_INSTRUCTIONS, STATEMENTS, TRANSACTIONS, WRITE_ENDPOINTS } from './endpoints';
import { rowCounts, startFuzzWorld, type FuzzWorld } from './fuzz-world';

describe('input the database could not store as sent', () => {
  let world: FuzzWorld;
  let account: { external: string; id: number };

  beforeAll(async () => {
    world = await startFuzzWorld();
    account = await world.account();
  });
  afterAll(() => world.close());

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  const cases: [string, (typeof WRITE_ENDPOINTS)[number], (p: any) => void, string, string][] = [
    [
      'a NUL in a note body',
      NOTES,
      (p) => (p.notes[0].body = 'before\u0000after'),
      'notes.0.body',
      'null_characters_not_allowed',
    ],
    [
      'a lone surrogate in a note body',
      NOTES,
      (p) => (p.notes[0].body = 'half \ud83d emoji'),
      'notes.0.body',
      'surrogate_characters_not_allowed',
    ],
    [
      'a NUL in the account reference',
      NOTES,
      (p) => (p.import_supplier += '\u0000'),
      'import_supplier',
      'null_characters_not_allowed',
    ],
    [
      'a NUL in a key',
      STATEMENTS,
      (p) => (p.statements[0]['x\u0000'] = 1),
      'statements.0.x\u0000',
      'null_characters_not_allowed',
    ],
    [
      'a NUL in a statement_id',
      STATEMENTS,
      (p) => (p.statements[0].statement_id = 'S\u0000'),
      'statements.0.statement_id',
      'null_characters_not_allowed',
    ],
    [
      'a NUL in a transaction note',
      TRANSACTIONS,
      (p) => (p.transactions[0].note = '\u0000'),
      'transactions.0.note',
      'null_characters_not_allowed',
    ],
    [
      'a NUL in line-item params (jsonb)',
      TRANSACTIONS,
      (p) => (p.transactions[1].line_items[0].params = { m: 'a\u0000' }),
      'transactions.1.line_items.0.params.m',
      'null_characters_not_allowed',
    ],
    [
      'a NUL in a payment-instruction account reference',
      PAYMENT_INSTRUCTIONS,
      (p) => (p.external_account_number += '\u0000'),
      'external_account_number',
      'null_characters_not_allowed',
    ],
    [
      'a NUL under a key with a dot (attr stops at the key)',
      NOTES,
      (p) => (p.notes[0]['a.b'] = '\u0000'),
      'notes.0',
      'null_characters_not_allowed',
    ],
  ];

  it.each(cases)(
    'refuses %s with 400 naming the field, and writes nothing',
    async (_label, endpoint, spoil, attr, code) => {
      const payload = endpoint.valid(world, account);
      spoil(payload);
      const before = await rowCounts(world.app, account.id);

      const res = await world.post(endpoint.path, payload);

      expect(res.status).toBe(400);
      const errors = [{ attr, code, detail: expect.any(String) }];
      // The transactions endpoint names the failing transaction in its own body (spec).
      if (endpoint === TRANSACTIONS) {
        const index = Number(attr.split('.')[1]);
        expect(res.body).toEqual({
          status: 'TRANSACTION_IMPORT_ERROR',
          error_detail: expect.any(String),
          // The transaction as a 201 would echo it (amounts as decimal strings), not as sent.
          transaction_data: expect.objectContaining({
            transaction_id: (payload.transactions as { transaction_id: string }[])[index]!.transaction_id,
            amount: expect.stringMatching(/^\d+\.\d{2}$/),
          }),
          errors,
        });
      } else {
        expect(res.body).toEqual({ detail: expect.any(String), code, errors });
      }
      expect(await rowCounts(world.app, account.id)).toEqual(before);
    },
  );

  it('lets a field of its own rule name the problem first: a NUL in a document path is invalid_document_path', async () => {
    const payload = NOTES.valid(world, account) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    payload.notes[1].document_paths[0].document_path = 'a\u0000b.pdf';
    const res = await world.post(NOTES.path, payload);
    expect([res.status, res.body.errors]).toEqual([
      400,
      [{ attr: 'notes.1.document_paths.0.document_path', code: 'invalid_document_path', detail: expect.any(String) }],
    ]);
  });

  it.each([
    ['transactions', TRANSACTIONS],
    ['notes', NOTES],
  ] as const)('refuses %s nested a million levels deep with 400 max_depth', async (_name, endpoint) => {
    const text = JSON.stringify({ ...endpoint.valid(world, account), extra: 'DEEP' }).replace(
      '"DEEP"',
      `${'['.repeat(1e6)}1${']'.repeat(1e6)}`,
    );
    const before = await rowCounts(world.app, account.id);

    const res = await world.postRaw(endpoint.path, text);

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { attr: `extra${'.0'.repeat(63)}`, code: 'max_depth', detail: expect.any(String) },
    ]);
    expect(await rowCounts(world.app, account.id)).toEqual(before);
  });

  it('accepts nesting as deep as the schemas go, and a well-formed emoji', async () => {
    const payload = TRANSACTIONS.valid(world, account) as any; // eslint-disable-line @typescript-eslint/no-explicit-any
    payload.transactions[1].line_items[0].params = { deep: [[[[['ok 😀']]]]] };
    const res = await world.post(TRANSACTIONS.path, payload);
    expect(res.status).toBe(201);
  });

  it('answers 404 to a status or list path holding %00, as for any missing account or supplier', async () => {
    const status = await request(
      world.app.baseUrl,
      'GET',
      `/v1/data-import/account-transfer-status/${world.tenant.supplier}/A%00B/`,
      { token: world.tenant.token },
    );
    const list = await request(world.app.baseUrl, 'GET', '/v1/data-import/all-account-import-processes/X%00/', {
      token: world.tenant.token,
    });
    expect([status.status, status.body.code]).toEqual([404, 'account_not_found']);
    expect([list.status, list.body.code]).toEqual([404, 'import_supplier_not_found']);
  });

  it.each(['%E0%A4%A', '%ED%A0%80', '%FF'])(
    'answers 400 parse_error to a path segment %s that is not UTF-8',
    async (segment) => {
      const res = await request(world.app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${segment}/`, {
        token: world.tenant.token,
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String), code: 'parse_error', errors: [] });
    },
  );
});
