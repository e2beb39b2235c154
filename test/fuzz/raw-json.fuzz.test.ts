// What only the raw JSON text can carry: NaN-like and out-of-range number tokens (NaN, Infinity,
// 1e400, -0, 1e-400, 30-digit integers), numbers no double holds exactly, and duplicate keys. Never a
// 5xx; a number is stored exactly or refused; a duplicate key means what JSON.parse makes of it (the
// last one wins), everywhere alike.
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { NOTES, TRANSACTIONS, WRITE_ENDPOINTS } from './endpoints';
import { fuzzOptions, rowCounts, startFuzzWorld, type FuzzWorld, FUZZ_TEST_TIMEOUT_MS } from './fuzz-world';
import { hostileValue, pathsOf } from './hostile-values';

jest.setTimeout(FUZZ_TEST_TIMEOUT_MS);

type Path = (string | number)[];

/** JSON text of `value` with the text at `at` replaced (`token`) or, for an object, a key written first (`duplicate`). */
function rawJson(
  value: unknown,
  at: Path,
  edit: { token?: string; duplicate?: [string, string] },
  path: Path = [],
): string {
  const here = path.length === at.length && path.every((p, i) => p === at[i]);
  if (here && edit.token !== undefined) return edit.token;
  if (Array.isArray(value)) return `[${value.map((v, i) => rawJson(v, at, edit, [...path, i])).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${rawJson(v, at, edit, [...path, k])}`);
    if (here && edit.duplicate) entries.unshift(`${JSON.stringify(edit.duplicate[0])}:${edit.duplicate[1]}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

const NUMBER_TOKENS = [
  '1e400',
  '-1e400',
  '1e-400',
  '-0',
  '0.0',
  '1E+2',
  '-1e-7',
  '1e21',
  '5e-324',
  '123456789012345678901234567890',
  '1234567890.1234567891',
  '9007199254740993',
  '0.30000000000000004',
  '71.000000000000000000001',
];
const INVALID_TOKENS = ['NaN', 'Infinity', '-Infinity', '01', '.5', '5.', '+1', '0x10', "'x'", 'undefined', '1_000'];

describe('raw JSON text', () => {
  let world: FuzzWorld;
  let account: { external: string; id: number };

  beforeAll(async () => {
    world = await startFuzzWorld();
    account = await world.account();
  });
  afterAll(() => world.close());

  it('never answers 5xx to any token in any place, refuses what is not JSON with parse_error, and writes nothing on a refusal', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WRITE_ENDPOINTS),
        fc.nat(),
        fc.constantFrom(...NUMBER_TOKENS, ...INVALID_TOKENS),
        async (endpoint, at, token) => {
          const valid = endpoint.valid(world, account);
          const paths = pathsOf(valid);
          const path = paths[at % paths.length]!;
          const text = rawJson(valid, path, { token });
          const before = await rowCounts(world.app, account.id);

          const res = await world.postRaw(endpoint.path, text);

          expect(res.status).toBeLessThan(500);
          if (INVALID_TOKENS.includes(token)) expect([res.status, res.body.code]).toEqual([400, 'parse_error']);
          if (res.status !== 201) {
            const input: unknown = INVALID_TOKENS.includes(token) ? undefined : JSON.parse(text);
            expect(endpoint.badRequestProblems(input, res.body)).toEqual([]);
            expect(await rowCounts(world.app, account.id)).toEqual(before);
          }
        },
      ),
      fuzzOptions(150),
    );
  });

  it('stores a transaction amount sent as a bare JSON number exactly, or refuses it: never a silently rounded figure', async () => {
    // Digits that underflow or vanish in the parse itself (1e-400, 71.000…001) never reach the service.
    const amount = fc.oneof(
      fc.constantFrom('1234567890.1234567891', '9007199254740993', '0.30000000000000004', '-0', '1E+2', '-1e-7'),
      fc.stringMatching(/^-?(0|[1-9][0-9]{0,9})(\.[0-9]{1,10})?$/),
    );
    await fc.assert(
      fc.asyncProperty(amount, async (token) => {
        const target = await world.account();
        const valid = TRANSACTIONS.valid(world, target) as { transactions: Record<string, unknown>[] };
        valid.transactions = [{ transaction_id: 'T-raw', transaction_date: '2019-10-04', amount: 0, type: 'CHARGE' }];
        const res = await world.postRaw(TRANSACTIONS.path, rawJson(valid, ['transactions', 0, 'amount'], { token }));

        expect(res.status).toBeLessThan(500);
        if (res.status !== 201) {
          expect(res.body.errors[0]).toMatchObject({ attr: 'transactions.0.amount' });
          return;
        }
        const stored = await world.app.db.prisma.transaction.findFirstOrThrow({ where: { accountId: target.id } });
        expect(new Decimal(stored.amount.toString()).eq(new Decimal(token))).toBe(true);
        expect(new Decimal(res.body.results[0].transaction_data.amount).eq(new Decimal(token))).toBe(true);
      }),
      fuzzOptions(60),
    );
  });

  it('reads a duplicate key anywhere as JSON.parse does (the last one wins), never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...WRITE_ENDPOINTS),
        fc.nat(),
        fc.nat(),
        hostileValue,
        async (endpoint, at, which, value) => {
          const valid = endpoint.valid(world, account);
          const objects = pathsOf(valid).filter((p) => {
            const node = p.reduce<any>((n, k) => n[k], valid); // eslint-disable-line @typescript-eslint/no-explicit-any
            return node !== null && typeof node === 'object' && !Array.isArray(node) && Object.keys(node).length > 0;
          });
          const path = objects[at % objects.length]!;
          const node = path.reduce<any>((n, k) => n[k], valid); // eslint-disable-line @typescript-eslint/no-explicit-any
          const key = Object.keys(node)[which % Object.keys(node).length]!;
          const text = rawJson(valid, path, { duplicate: [key, JSON.stringify(value) ?? 'null'] });
          expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(valid)));
          const before = await rowCounts(world.app, account.id);

          const res = await world.postRaw(endpoint.path, text);

          // The earlier value is gone: the request is the valid one, answered as such.
          expect(res.status).toBeLessThan(500);
          if (res.status !== 201) {
            expect(endpoint.badRequestProblems(JSON.parse(text), res.body)).toEqual([]);
            expect(await rowCounts(world.app, account.id)).toEqual(before);
          }
        },
      ),
      fuzzOptions(80),
    );
  });

  it('lets no __proto__ or constructor key reach a prototype of this process, at any depth of any endpoint', async () => {
    const protoKeys = Object.getOwnPropertyNames(Object.prototype).sort();
    const poison = '{"__proto__":{"polluted":"yes"},"constructor":{"prototype":{"polluted":"yes"}}}';
    for (const endpoint of WRITE_ENDPOINTS) {
      const valid = endpoint.valid(world, account);
      for (const path of pathsOf(valid).filter((p) => p.length > 0)) {
        const res = await world.postRaw(endpoint.path, rawJson(valid, path, { token: poison }));
        expect(res.status).toBeLessThan(500);
        const top = rawJson(valid, [], { duplicate: ['__proto__', poison] });
        expect((await world.postRaw(endpoint.path, top)).status).toBeLessThan(500);
      }
    }
    const line = await world.post(TRANSACTIONS.path, {
      ...TRANSACTIONS.valid(world, await world.account()),
      transactions: [
        JSON.parse(
          `{"transaction_id":"P-1","transaction_date":"2019-10-04","amount":"1.00","type":"CHARGE","__proto__":{"polluted":"yes"},"tax_items":[{"amount":"1","tax_type":"VAT","value_taxed":"1","rate":"1","unit_type":"PROPORTION","params":${poison}}]}`,
        ),
      ],
    });
    expect(line.status).toBe(201);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(protoKeys);
  });

  it('stores the last of two bodies of one note', async () => {
    const target = await world.account();
    const text = `{"import_supplier":${JSON.stringify(world.tenant.supplier)},"external_account_number":${JSON.stringify(target.external)},"notes":[{"body":"first","body":"second"}]}`;
    const res = await world.postRaw(NOTES.path, text);
    expect(res.status).toBe(201);
    expect((await world.app.db.prisma.note.findMany({ where: { accountId: target.id } })).map((n) => n.body)).toEqual([
      'second',
    ]);
  });
});
