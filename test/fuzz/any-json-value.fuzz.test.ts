// Any JSON value (deep nesting of arrays or objects, up to past the body limit) in any field of any
// write endpoint, or under a new key anywhere: the answer is JSON, never a 5xx, and every refusal
// carries a stable code (issue 17 item 7: a value 5,000 levels deep once made Express answer HTML).
import fc from 'fast-check';
import { codeOfErrorBody } from '../../shared/platform/errors';
import { WRITE_ENDPOINTS } from './endpoints';
import { fuzzOptions, startFuzzWorld, type FuzzWorld, FUZZ_TEST_TIMEOUT_MS } from './fuzz-world';
import { mutate } from './hostile-values';

jest.setTimeout(FUZZ_TEST_TIMEOUT_MS);

const BODY_LIMIT = 256 * 1024;
const PLACEHOLDER = '__FUZZ_VALUE__';

/** A JSON value as text: built by concatenation, since JSON.stringify overflows on the deep ones. */
const jsonText: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v)) },
  {
    weight: 3,
    arbitrary: fc
      .record({
        inner: fc.jsonValue({ maxDepth: 2 }),
        depth: fc.integer({ min: 50, max: 30_000 }),
        kind: fc.constantFrom('array', 'object'),
      })
      .map(({ inner, depth, kind }) =>
        kind === 'array'
          ? `${'['.repeat(depth)}${JSON.stringify(inner)}${']'.repeat(depth)}`
          : `${'{"k":'.repeat(depth)}${JSON.stringify(inner)}${'}'.repeat(depth)}`,
      ),
  },
  // Around the body limit: under it a long string or list, over it a 413.
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: BODY_LIMIT - 4_096, max: BODY_LIMIT + 4_096 })
      .chain((n) => fc.constantFrom(JSON.stringify('x'.repeat(n)), `[${'0,'.repeat(n / 2)}0]`)),
  },
);

describe.each(WRITE_ENDPOINTS)('POST $name with any JSON value in any field', (endpoint) => {
  let world: FuzzWorld;
  let account: { external: string; id: number };

  beforeAll(async () => {
    world = await startFuzzWorld({ BODY_LIMIT_BYTES: String(BODY_LIMIT) });
    account = await world.account();
  });
  afterAll(() => world.close());

  it('answers JSON, never 5xx, and every refusal with a stable code', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.nat(),
        fc.constantFrom<'replace' | 'addKey'>('replace', 'addKey'),
        fc.string({ maxLength: 8 }),
        jsonText,
        async (at, op, key, text) => {
          const payload = mutate(endpoint.valid(world, account), [{ at, op, key, value: PLACEHOLDER, text: '' }]);
          const body = JSON.stringify(payload).replace(`"${PLACEHOLDER}"`, () => text);

          const res = await world.postRaw(endpoint.path, body);

          expect(res.headers.get('content-type')).toMatch(/^application\/json/);
          expect(res.status).toBeLessThan(500);
          if (res.status >= 400) expect(codeOfErrorBody(res.body)).toEqual(expect.any(String));
        },
      ),
      fuzzOptions(40),
    );
  });
});
