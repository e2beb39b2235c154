// A vendor that hangs must end in the spec's 500 "retry as it is" for the request that is waiting, not
// in a 503 result_pending with the 500 found only by polling: the attempts are fitted into RESULT_WAIT_MS
// from the settings at hand (vendor-wait.ts), whatever VENDOR_TIMEOUT_MS is.
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import {
  card,
  importAccount,
  postInstruction,
  startInstructionsWorld,
  storedInstructions,
  vendorCalls,
} from './payment-instructions.fixture';

// Longer than any wait below: the fake answers only when the test is over.
const HANG_MS = 120_000;

describe('payment-instruction/create when the vendor hangs', () => {
  beforeEach(() => resetVendorBreakers());
  afterAll(() => resetVendorBreakers());

  it.each([
    // 6 attempts of a whole time-out plus back-off would take 13.75 s. (Waits of 10 s and more leave
    // the answer its whole 2 s margin, room for the hand-over and the answer on a busy machine.)
    { VENDOR_TIMEOUT_MS: 1_000, RESULT_WAIT_MS: 10_000 },
    // A vendor time-out longer than the whole wait.
    { VENDOR_TIMEOUT_MS: 60_000, RESULT_WAIT_MS: 12_000 },
  ])(
    'answers the waiting request 500 vendor_unavailable, not 503, with %o',
    async (settings) => {
      const world = await startInstructionsWorld(settings.RESULT_WAIT_MS, {
        overrides: { VENDOR_TIMEOUT_MS: String(settings.VENDOR_TIMEOUT_MS) },
        slowMs: HANG_MS,
      });
      try {
        const account = await importAccount(world.app, world.tenant);
        const method = world.fake.addCard();
        world.fake.setMode('slow');

        const res = await postInstruction(world, account, card(method.id));

        expect(res.status).toBe(500);
        expect(res.body).toEqual({
          detail: expect.stringMatching(/retry the request as it is/i),
          code: 'vendor_unavailable',
        });
        // Every call was cut by the service (the fake never answered one), and nothing was stored.
        const calls = vendorCalls(world.fake, method.id);
        expect(calls.length).toBeGreaterThan(0);
        expect(calls.map((c) => c.status)).toEqual(calls.map(() => 0));
        expect(await storedInstructions(world.app, account.id)).toEqual([]);
      } finally {
        await world.close();
      }
    },
    30_000,
  );
});
