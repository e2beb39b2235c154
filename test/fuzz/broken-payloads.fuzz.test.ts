// Valid payloads with hostile values planted anywhere (wrong types, missing and null fields, huge
// strings and arrays, deep nesting, impossible dates, NaN-like strings, control and unicode characters,
// `__proto__`/`constructor` keys): never a 5xx, every 400 by the contract, and a refusal writes nothing.
import fc from 'fast-check';
import { WRITE_ENDPOINTS } from './endpoints';
import { fuzzOptions, rowCounts, startFuzzWorld, type FuzzWorld, FUZZ_TEST_TIMEOUT_MS } from './fuzz-world';
import { mutate, mutation } from './hostile-values';

jest.setTimeout(FUZZ_TEST_TIMEOUT_MS);

const RUNS: Record<string, number> = {
  notes: 300,
  'historical-statements': 300,
  transactions: 200,
  'payment-instruction': 150,
};

describe.each(WRITE_ENDPOINTS)('POST $name under broken payloads', (endpoint) => {
  let world: FuzzWorld;
  let account: { external: string; id: number };

  beforeAll(async () => {
    world = await startFuzzWorld();
    account = await world.account();
  });
  afterAll(() => world.close());

  it('answers 400 (stable code, attr into the input), 404 or 413 and writes nothing, or accepts; never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(mutation, { minLength: 1, maxLength: 3 }), async (mutations) => {
        const payload = mutate(endpoint.valid(world, account), mutations);
        const before = await rowCounts(world.app, account.id);
        const res = await world.post(endpoint.path, payload);

        expect(res.status).toBeLessThan(500);
        if (res.status === 201) return;
        expect([400, 404, 413]).toContain(res.status);
        if (res.status === 400) expect(endpoint.badRequestProblems(payload, res.body)).toEqual([]);
        if (res.status === 404) expect(res.body.code).toBe('account_not_found');
        expect(await rowCounts(world.app, account.id)).toEqual(before);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      fuzzOptions(RUNS[endpoint.name]!),
    );
  });
});
