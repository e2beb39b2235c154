// Issue 17 items 7, 9 and 10: every answer is the documented JSON (a value thousands of levels deep in
// a transaction, an error body JSON.stringify cannot write), no query option is silently dropped, and no
// JSON number is silently changed by the parser.
import express from 'express';
import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import pino from 'pino';
import { errorMiddleware } from '../../api/error-middleware';
import { AppError } from '../../shared/platform/errors';
import { NOTES, PAYMENT_INSTRUCTIONS, STATEMENTS, TRANSACTIONS, WRITE_ENDPOINTS } from '../fuzz/endpoints';
import { rowCounts, startFuzzWorld, type FuzzWorld } from '../fuzz/fuzz-world';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Payload = any;

describe('answers that must not lie or break', () => {
  let world: FuzzWorld;
  let account: { external: string; id: number };

  beforeAll(async () => {
    world = await startFuzzWorld();
    account = await world.account();
  });
  afterAll(() => world.close());

  /** Posts `payload` with `marker` (a JSON string in it) replaced by `raw` JSON text. */
  const postWith = (path: string, payload: unknown, raw: string, query?: string) =>
    world.postRaw(path, JSON.stringify(payload).replace('"MARKER"', raw), { query });

  describe('every answer is JSON (item 7)', () => {
    const deep = `${'['.repeat(5_000)}1${']'.repeat(5_000)}`;

    it.each([
      ['an unknown field', 'extra'],
      ['a known field', 'amount'],
      ['line-item params', 'params'],
    ])('refuses a transaction value 5,000 levels deep in %s with a JSON 400 max_depth', async (_name, field) => {
      const payload: Payload = TRANSACTIONS.valid(world, account);
      if (field === 'params') payload.transactions[1].line_items[0].params = { deep: 'MARKER' };
      else payload.transactions[0][field] = 'MARKER';
      const before = await rowCounts(world.app, account.id);

      const res = await postWith(TRANSACTIONS.path, payload, deep);

      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ code: 'max_depth', errors: [{ code: 'max_depth' }] });
      expect(await rowCounts(world.app, account.id)).toEqual(before);
    });

    it('echoes a failing transaction normalised: known fields only, amounts as decimal strings', async () => {
      const payload: Payload = TRANSACTIONS.valid(world, account);
      Object.assign(payload.transactions[0], { transaction_date: '2019-13-01', extra: { any: 'thing' } });
      payload.transactions[1].line_items[0].junk = [1, 2, 3];
      payload.transactions[1].amount = 1;

      const res = await world.post(TRANSACTIONS.path, payload);

      expect(res.status).toBe(400);
      expect(res.body.transaction_data).toEqual({
        transaction_id: 'T-1',
        transaction_date: '2019-13-01',
        amount: '71.00',
        type: 'PAYMENT',
        reason: 'GENERAL_CREDIT',
        reference: 'ref 1',
        payment_type: 'DEBIT_CARD',
      });
      expect(res.body.errors.map((e: { attr: string }) => e.attr)).toEqual([
        'transactions.0.transaction_date',
        'transactions.1.amount',
      ]);
    });

    it('answers a 500 JSON body, logged at error level, when an error body cannot be serialised', async () => {
      const lines: string[] = [];
      const sink = new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString());
          done();
        },
      });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      class CyclicError extends AppError {
        override toBody() {
          return { detail: 'x', code: 'invalid_input', cyclic };
        }
      }
      const app = express();
      app.get('/boom', () => {
        throw new CyclicError(400, 'invalid_input', 'x');
      });
      app.use(errorMiddleware(pino({ level: 'info' }, sink), 1));
      const server: Server = await new Promise((resolve) => {
        const s = app.listen(0, '127.0.0.1', () => resolve(s));
      });
      try {
        const { port } = server.address() as { port: number };
        const res = await fetch(`http://127.0.0.1:${port}/boom`);
        expect(res.status).toBe(500);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({
          detail: expect.any(String),
          code: 'server_error',
          error_id: expect.any(String),
        });
        expect(lines.map((l) => JSON.parse(l) as { level: number }).some((l) => l.level >= 50)).toBe(true);
      } finally {
        await new Promise((resolve) => server.close(resolve));
      }
    });
  });

  describe('no silent option (item 9)', () => {
    it.each(WRITE_ENDPOINTS.map((e) => [e.name, e] as const))(
      'refuses ?dry_run=true on %s with 400 naming the parameter, and writes nothing',
      async (_name, endpoint) => {
        const before = await rowCounts(world.app, account.id);
        const res = await world.post(endpoint.path, endpoint.valid(world, account), { query: 'dry_run=true' });
        expect(res.status).toBe(400);
        expect(res.body).toEqual({
          detail: expect.any(String),
          code: 'invalid_input',
          errors: [{ attr: 'dry_run', code: 'unknown_query_parameter', detail: expect.any(String) }],
        });
        expect(await rowCounts(world.app, account.id)).toEqual(before);
      },
    );

    it.each([
      ['check_previously_added[]=false', 'check_previously_added[]', 'unknown_query_parameter'],
      ['check_previously_added=true&check_previously_added=false', 'check_previously_added', 'invalid'],
      [
        'force_add_to_current_statement=false&force_add_to_current_statement=false',
        'force_add_to_current_statement',
        'invalid',
      ],
    ])('refuses the malformed transactions query %s', async (query, attr, code) => {
      const before = await rowCounts(world.app, account.id);
      const res = await world.post(TRANSACTIONS.path, TRANSACTIONS.valid(world, account), { query });
      expect([res.status, res.body.errors]).toEqual([400, [{ attr, code, detail: expect.any(String) }]]);
      expect(await rowCounts(world.app, account.id)).toEqual(before);
    });

    it('still takes the documented transactions options', async () => {
      const fresh = await world.account();
      const res = await world.post(TRANSACTIONS.path, TRANSACTIONS.valid(world, fresh), {
        query: 'check_previously_added=false&force_add_to_current_statement=true',
      });
      expect(res.status).toBe(201);
    });
  });

  describe('no silent number change (item 10)', () => {
    it.each([
      '1e-400',
      '1e400',
      '-1e400',
      '0.1000000000000000055511151231257827',
      '9007199254740993',
      '18446744073709551616',
    ])('refuses the transaction amount %s with 400 imprecise_number on its field', async (number) => {
      const payload: Payload = TRANSACTIONS.valid(world, account);
      payload.transactions[0].amount = 'MARKER';
      const before = await rowCounts(world.app, account.id);
      const res = await postWith(TRANSACTIONS.path, payload, number);
      expect([res.status, res.body.code, res.body.errors]).toEqual([
        400,
        'imprecise_number',
        [{ attr: 'transactions.0.amount', code: 'imprecise_number', detail: expect.any(String) }],
      ]);
      expect(await rowCounts(world.app, account.id)).toEqual(before);
    });

    it.each([
      [STATEMENTS, (p: Payload) => (p.statements[0].gross_amount = 'MARKER'), 'statements.0.gross_amount'],
      [NOTES, (p: Payload) => (p.notes[0].extra = { 'a"b': ['x\\"', 'MARKER'] }), 'notes.0.extra.a"b.1'],
      [PAYMENT_INSTRUCTIONS, (p: Payload) => (p.vendor = 'MARKER'), 'vendor'],
    ])('names the place of a number that changes when read, in any body (%#)', async (endpoint, plant, attr) => {
      const payload: Payload = endpoint.valid(world, account);
      plant(payload);
      const res = await postWith(endpoint.path, payload, '1e-400');
      expect([res.status, res.body.errors]).toEqual([
        400,
        [{ attr, code: 'imprecise_number', detail: expect.any(String) }],
      ]);
    });

    it('takes numbers whose value is the one written, exponents and trailing zeros included', async () => {
      const fresh = await world.account();
      const payload: Payload = TRANSACTIONS.valid(world, fresh);
      payload.transactions[0].amount = 'MARKER';
      const res = await postWith(TRANSACTIONS.path, payload, '7.10e1');
      expect(res.status).toBe(201);
      expect(res.body.results[0].transaction_data.amount).toBe('71.00');
    });
  });
});
