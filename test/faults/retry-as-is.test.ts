// Found by the fault suite: a queued request whose answer was a stored 500 ("retry the request as it
// is") replayed that 500 to every retry with the same Idempotency-Key, so a client doing exactly what
// the spec says never got through, even after the vendor recovered.
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import {
  card,
  importAccount,
  postInstruction,
  startInstructionsWorld,
  storedInstructions,
  vendorCalls,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';

describe('a retry of a request answered 500 "retry as-is", with the same Idempotency-Key', () => {
  let world: InstructionsWorld;

  beforeAll(async () => {
    // Room for the retry's queue hop and vendor call on a busy machine; the breaker stays open longer.
    world = await startInstructionsWorld(20_000);
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  it('runs the request again instead of replaying the 500, and then replays the 201', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    const key = `retry-as-is-${account.number}`;
    // One failure opens the breaker for a minute: the job answers 500 at once instead of waiting.
    resetVendorBreakers({ volumeThreshold: 1, resetTimeoutMs: 60_000 });
    world.fake.setMode('error500');

    const failed = await postInstruction(world, account, card(method.id), { 'idempotency-key': key });

    expect(failed.status).toBe(500);
    expect(failed.body.code).toBe('vendor_unavailable');
    const row = await world.app.db.prisma.requestResult.findFirstOrThrow({ where: { idempotencyKey: key } });
    expect(row.httpStatus).toBe(500);
    expect(await storedInstructions(world.app, account.id)).toEqual([]);

    world.fake.setMode('healthy');
    resetVendorBreakers();
    const retried = await postInstruction(world, account, card(method.id), { 'idempotency-key': key });

    expect(retried.status).toBe(201);
    expect(retried.body).toEqual({ platform_account_number: expect.any(String), reference: method.id });
    expect(await storedInstructions(world.app, account.id)).toHaveLength(1);
    const callsAfterSuccess = vendorCalls(world.fake, method.id).length;
    expect(
      vendorCalls(world.fake, method.id)
        .map((c) => c.status)
        .at(-1),
    ).toBe(200);

    const replayed = await postInstruction(world, account, card(method.id), { 'idempotency-key': key });
    expect(replayed.status).toBe(201);
    expect(replayed.body).toEqual(retried.body);
    expect(vendorCalls(world.fake, method.id)).toHaveLength(callsAfterSuccess);
    expect(await world.app.db.prisma.requestResult.count({ where: { idempotencyKey: key } })).toBe(1);
  });
});
