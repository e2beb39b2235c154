// Vendor faults go through BullMQ's retries (paymentInstructionJob: 6 attempts, exponential
// 250 ms) and the STRIPE circuit breaker; the request still answers within RESULT_WAIT_MS.
import { Queue } from 'bullmq';

import {
  resetVendorBreakers,
  vendorBreakerStates,
  vendorCallsInFlight,
} from '../../shared/payment-instructions/vendors/vendor-breakers';
import {
  card,
  importAccount,
  postInstruction,
  startInstructionsWorld,
  storedInstructions,
  vendorCalls,
  type InstructionsWorld,
} from './payment-instructions.fixture';
import { paymentInstructionJob } from '../../shared/payment-instructions/payment-instruction.job';

const RESULT_WAIT_MS = 15_000;

describe('payment-instruction/create when the vendor fails', () => {
  let world: InstructionsWorld;

  beforeAll(async () => {
    world = await startInstructionsWorld(RESULT_WAIT_MS);
  });
  beforeEach(() => {
    resetVendorBreakers({ resetTimeoutMs: 500, volumeThreshold: 5 });
    world.fake.setMode('healthy');
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  it('retries a 500 and a 429 and then answers 201 from the third call', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    world.fake.queueModes('error500', 'rateLimited');

    const res = await postInstruction(world, account, card(method.id));

    expect(res.status).toBe(201);
    expect(vendorCalls(world.fake, method.id).map((r) => r.status)).toEqual([500, 429, 200]);
    expect(await storedInstructions(world.app, account.id)).toHaveLength(1);
  });

  it('retries calls that time out and then answers 201', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    world.fake.queueModes('slow', 'slow');

    const res = await postInstruction(world, account, card(method.id));

    expect(res.status).toBe(201);
    expect(vendorCalls(world.fake, method.id).map((r) => r.mode)).toEqual(['slow', 'slow', 'healthy']);
    expect(await storedInstructions(world.app, account.id)).toHaveLength(1);
  });

  it('answers 500 vendor_unavailable (retry as-is) within the wait when every attempt fails', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    world.fake.setMode('error500');
    const started = Date.now();

    const res = await postInstruction(world, account, card(method.id));

    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      detail: expect.stringMatching(/retry the request as it is/i),
      code: 'vendor_unavailable',
    });
    expect(Date.now() - started).toBeLessThan(RESULT_WAIT_MS);
    expect(vendorCalls(world.fake, method.id)).toHaveLength(6);
    expect(await storedInstructions(world.app, account.id)).toEqual([]);
  });

  it('keeps the breaker closed however many references Stripe does not know', async () => {
    const account = await importAccount(world.app, world.tenant);

    for (let i = 0; i < 8; i++) {
      const res = await postInstruction(world, account, card(`pm_missing${i}`));
      expect(res.status).toBe(400);
    }

    expect(vendorBreakerStates()).toEqual({ STRIPE: 'closed' });
  });

  it('opens the breaker after repeated faults, sends nothing to the vendor while open, and closes when it is healthy', async () => {
    resetVendorBreakers({ resetTimeoutMs: 1500, volumeThreshold: 3 });
    const accounts = await Promise.all([1, 2, 3].map(() => importAccount(world.app, world.tenant)));
    const methods = accounts.map(() => world.fake.addCard());
    world.fake.setMode('error500');

    const answers = Promise.all(accounts.map((a, i) => postInstruction(world, a, card(methods[i]!.id))));
    // A call the breaker let through just before it opened may still be on its way: count once it has landed.
    await until(() => vendorBreakerStates().STRIPE === 'open' && vendorCallsInFlight().STRIPE === 0);
    const callsWhenOpened = world.fake.requests.length;
    world.fake.setMode('healthy');
    // Read calls before state: if the breaker is still open after the read, nothing was sent meanwhile.
    let polls = 0;
    await until(() => {
      const calls = world.fake.requests.length;
      if (vendorBreakerStates().STRIPE !== 'open') return true;
      expect(calls).toBe(callsWhenOpened);
      polls += 1;
      return false;
    });

    expect(polls).toBeGreaterThan(0);
    expect((await answers).map((r) => r.status)).toEqual([201, 201, 201]);
    expect(vendorBreakerStates()).toEqual({ STRIPE: 'closed' });
    expect(world.fake.requests.slice(callsWhenOpened).map((r) => r.status)).toEqual([200, 200, 200]);
    // Parked jobs spent no attempt while the breaker was open: one attempt per vendor call, no more.
    const attempts = await attemptsByAccount(accounts.map((a) => a.id));
    accounts.forEach((a, i) => expect(attempts.get(a.id)).toBe(vendorCalls(world.fake, methods[i]!.id).length));
  });

  async function attemptsByAccount(accountIds: number[]): Promise<Map<number, number>> {
    const queue = new Queue(paymentInstructionJob.queue, {
      connection: { url: world.app.config.REDIS_URL },
      prefix: world.app.config.QUEUE_PREFIX,
    });
    try {
      const jobs = await queue.getJobs(['completed']);
      return new Map(
        jobs.filter((j) => accountIds.includes(j.data.accountId)).map((j) => [j.data.accountId, j.attemptsMade]),
      );
    } finally {
      await queue.close();
    }
  }
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
