// The group committer on its own: who shares a transaction, in which order, and what a failure costs.
// Commits are held open by the test (promises it resolves), so nothing here depends on timing.
import { createGroupCommitter } from '../../shared/requests/group-commit';

interface Item {
  name: string;
  key: string;
  fails?: boolean;
}

/** A commit function that records every group and stays open until the test releases it. */
function recorder() {
  const groups: string[][] = [];
  const open: (() => void)[] = [];
  const waiting: { total: number; resolve: () => void }[] = [];
  const commit = async (items: Item[]) => {
    groups.push(items.map((i) => i.name));
    for (const w of waiting.filter((w) => groups.length >= w.total)) w.resolve();
    await new Promise<void>((resolve) => open.push(resolve));
    if (items.some((i) => i.fails)) throw new Error(`group ${items.map((i) => i.name).join(',')} failed`);
    return items.map((i) => `done ${i.name}`);
  };
  return {
    groups,
    commit,
    /** Resolves once `total` commits in all have started. */
    started: (total: number) =>
      groups.length >= total ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ total, resolve })),
    /** Lets every commit that is waiting finish. */
    releaseAll: () => open.splice(0).forEach((release) => release()),
  };
}

const item = (name: string, key = name, fails = false): Item => ({ name, key, fails });

describe('group commit', () => {
  it('commits a lone item at once, and the items that come while it commits as one group', async () => {
    const r = recorder();
    const gc = createGroupCommitter({ commit: r.commit, keyOf: (i: Item) => i.key, maxGroup: 10, maxInFlight: 1 });

    const first = gc.run(item('a'));
    await r.started(1);
    expect(r.groups).toEqual([['a']]);
    const later = ['b', 'c', 'd'].map((n) => gc.run(item(n)));
    r.releaseAll();
    await expect(first).resolves.toBe('done a');
    await r.started(2);
    r.releaseAll();

    await expect(Promise.all(later)).resolves.toEqual(['done b', 'done c', 'done d']);
    expect(r.groups).toEqual([['a'], ['b', 'c', 'd']]);
  });

  it('never puts two items of one key in one transaction: the later one commits after, in order', async () => {
    const r = recorder();
    const gc = createGroupCommitter({ commit: r.commit, keyOf: (i: Item) => i.key, maxGroup: 10, maxInFlight: 1 });

    const all = [item('a1', 'a'), item('b1', 'b'), item('a2', 'a'), item('a3', 'a')].map((i) => gc.run(i));
    for (let round = 1; round <= 3; round++) {
      await r.started(round);
      r.releaseAll();
    }

    await expect(Promise.all(all)).resolves.toEqual(['done a1', 'done b1', 'done a2', 'done a3']);
    expect(r.groups).toEqual([['a1', 'b1'], ['a2'], ['a3']]);
  });

  it('runs each item of a failed group alone, side by side, so only the item that fails is refused', async () => {
    const r = recorder();
    const gc = createGroupCommitter({ commit: r.commit, keyOf: (i: Item) => i.key, maxGroup: 10, maxInFlight: 1 });

    const runs = [item('a'), item('poison', 'p', true), item('c')].map((i) => gc.run(i));
    await r.started(1);
    r.releaseAll();
    // Each of the three alone, all open at once: none waits for another to finish.
    await r.started(4);
    r.releaseAll();
    const settled = await Promise.allSettled(runs);

    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((settled[1] as PromiseRejectedResult).reason).toEqual(new Error('group poison failed'));
    expect(r.groups).toEqual([['a', 'poison', 'c'], ['a'], ['poison'], ['c']]);
  });

  it('keeps groups within maxGroup and transactions in flight within maxInFlight', async () => {
    const r = recorder();
    const gc = createGroupCommitter({ commit: r.commit, keyOf: (i: Item) => i.key, maxGroup: 2, maxInFlight: 2 });

    const all = ['a', 'b', 'c', 'd', 'e'].map((n) => gc.run(item(n)));
    await r.started(2);
    // Two groups of two commit; the fifth item waits for a free transaction.
    expect(r.groups).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
    r.releaseAll();
    await r.started(3);
    r.releaseAll();

    await expect(Promise.all(all)).resolves.toEqual(['done a', 'done b', 'done c', 'done d', 'done e']);
    expect(r.groups).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });
});
