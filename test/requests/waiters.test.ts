// The waiter registry: wake-ups are never lost, carry the answer when there is one, and a closed
// waiter leaves nothing behind.
import { createWaiterRegistry } from '../../shared/requests/waiters';

describe('the waiter registry', () => {
  it('keeps a wake-up that came before the request began to wait, with its answer', async () => {
    const waiters = createWaiterRegistry();
    const waiter = waiters.watch('r-1');
    waiters.wake('r-1', { status: 201, body: { ok: true } });

    const started = performance.now();
    await expect(waiter.next(60_000)).resolves.toEqual({ status: 201, body: { ok: true } });
    expect(performance.now() - started).toBeLessThan(5_000);
    waiter.close();
  });

  it('wakes every waiter of the request and no other, without an answer when none came', async () => {
    const waiters = createWaiterRegistry();
    const [a, b, other] = [waiters.watch('r-2'), waiters.watch('r-2'), waiters.watch('r-3')];
    const woken = Promise.all([a.next(60_000), b.next(60_000)]);
    waiters.wake('r-2');

    await expect(woken).resolves.toEqual([undefined, undefined]);
    // r-3 was not woken: it waits its whole (short) time and then resolves with no answer.
    await expect(other.next(20)).resolves.toBeUndefined();
    expect(waiters.waitingIds().sort()).toEqual(['r-2', 'r-3']);
    for (const w of [a, b, other]) w.close();
    expect(waiters.waitingIds()).toEqual([]);
  });
});
