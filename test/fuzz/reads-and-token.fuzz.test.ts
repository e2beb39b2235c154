// The endpoints whose input is not a JSON body: path segments of the status and list reads, and the
// obtainToken mutation's inputs. Never a 5xx; a miss is a 404 with its stable code, whatever the bytes.
import fc from 'fast-check';
import { obtainToken, request } from '../helpers/app';
import { fuzzOptions, startFuzzWorld, type FuzzWorld, FUZZ_TEST_TIMEOUT_MS } from './fuzz-world';
import { hostileText } from './hostile-values';

jest.setTimeout(FUZZ_TEST_TIMEOUT_MS);

const wellFormed = (s: string) => !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
const segmentText = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }).filter(wellFormed),
  hostileText.filter(wellFormed),
  fc.constantFrom('..', '.', '%', '%2F', '\\', "'; DROP TABLE accounts; --", '$1', ' '),
);
// A segment as a client may send it: percent-encoded, or raw %-sequences that may not be UTF-8 at all.
const segment = fc.oneof(
  segmentText.map(encodeURIComponent),
  fc
    .array(fc.integer({ min: 0, max: 255 }), { minLength: 1, maxLength: 6 })
    .map((bytes) => bytes.map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
);

describe('reads and obtainToken under generated input', () => {
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await startFuzzWorld({ TOKEN_RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(() => world.close());

  it('answers status and list reads of any path segments with 200, 404 or 400 parse_error, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('status', 'all', 'pending', 'imported'),
        segment,
        segment,
        async (kind, a, b) => {
          const path =
            kind === 'status'
              ? `/v1/data-import/account-transfer-status/${a}/${b}/`
              : `/v1/data-import/${kind}-account-import-processes/${a}/`;
          const res = await request(world.app.baseUrl, 'GET', path, { token: world.tenant.token });

          expect(res.status).toBeLessThan(500);
          expect([200, 400, 404]).toContain(res.status);
          if (res.status === 400) expect(res.body.code).toBe('parse_error');
          if (res.status === 404)
            expect(['account_not_found', 'import_supplier_not_found', 'route_not_found']).toContain(res.body.code);
        },
      ),
      fuzzOptions(200),
    );
  });

  it('answers any APIKey or refreshToken with a stable GraphQL error code, never 5xx and never a token', async () => {
    const input = fc.oneof(
      fc.record({ APIKey: fc.oneof(segmentText, fc.string({ unit: 'binary', maxLength: 300 })) }),
      fc.record({ refreshToken: fc.oneof(segmentText, fc.string({ unit: 'binary', maxLength: 300 })) }),
      fc.record({ APIKey: segmentText, refreshToken: segmentText }),
    );
    await fc.assert(
      fc.asyncProperty(input, async (given) => {
        const res = await obtainToken(world.app.baseUrl, given);

        expect(res.status).toBeLessThan(500);
        expect(res.body.data?.obtainToken ?? null).toBeNull();
        expect(['invalid_api_key', 'invalid_refresh_token', 'invalid_input']).toContain(
          res.body.errors?.[0]?.extensions?.code,
        );
      }),
      fuzzOptions(150),
    );
  });
});
