// Group commit: the jobs a worker process runs at the same time share one database transaction, so a
// burst of N requests costs one BEGIN, one set of locks and statements, and one COMMIT instead of N.
//
// Items that arrive while the process's groups are all committing wait and form the next group; an
// item that arrives while a slot is free is dispatched after the current turn of the event loop (so
// the others of the same burst join it). A lone item is therefore never delayed, and under load the
// groups grow to what the commits let pile up (at most `maxGroup`). Two items with the same key (the
// same account) never share a transaction: the later one goes into a following round, because its
// work must see what the earlier one wrote. When a group's transaction fails, each of its items is run
// alone (side by side), so one failing item (a poison request) fails only itself. A group never waits
// for a lock that another transaction holds (its statements ask with NOWAIT and fail instead): waiting
// alone, the job that needs the lock holds up no other, so one tenant's busy account cannot stall the
// imports of another tenant's accounts that happen to share its group.
export interface GroupCommitter<T, R> {
  /** Resolves with the item's result once its group has committed; rejects with its own failure. */
  run(item: T): Promise<R>;
}

export interface GroupCommitOptions<T, R> {
  /** Commits the items in one transaction and returns one result per item, in order. */
  commit: (items: T[]) => Promise<R[]>;
  /** Items with equal keys are committed one after the other, never in one transaction. */
  keyOf: (item: T) => string | number;
  /** The most items in one transaction. */
  maxGroup: number;
  /** The most transactions committing at once (each holds one pooled connection). */
  maxInFlight: number;
}

interface Waiting<T, R> {
  item: T;
  resolve: (result: Promise<R>) => void;
}

export function createGroupCommitter<T, R>(opts: GroupCommitOptions<T, R>): GroupCommitter<T, R> {
  const waiting: Waiting<T, R>[] = [];
  let committing = 0;
  let dispatchPlanned = false;

  // Called when an item arrives and when a group's commit settles: starts groups while a slot is free.
  const planDispatch = () => {
    if (dispatchPlanned || waiting.length === 0 || committing >= opts.maxInFlight) return;
    dispatchPlanned = true;
    // After this turn of the event loop, so the rest of a burst joins the group.
    setImmediate(() => {
      dispatchPlanned = false;
      while (waiting.length > 0 && committing < opts.maxInFlight) dispatch(waiting.splice(0, opts.maxGroup));
    });
  };

  const dispatch = (group: Waiting<T, R>[]) => {
    committing++;
    const { results, settled } = commitInRounds(
      group.map((w) => w.item),
      opts,
    );
    // Each item is answered as soon as its own commit is done (not when the slowest of its group is);
    // the group's slot is free once all of them are.
    group.forEach((w, i) => w.resolve(results[i]!));
    const release = () => {
      committing--;
      planDispatch();
    };
    void settled.then(release, release);
  };

  return {
    run: (item) =>
      new Promise<R>((resolve) => {
        waiting.push({ item, resolve });
        planDispatch();
      }),
  };
}

/**
 * Each item's result in the items' order, and when they have all settled. A round starts once the one
 * before it has settled: an item may follow one with its key.
 */
function commitInRounds<T, R>(items: readonly T[], opts: GroupCommitOptions<T, R>) {
  const results = new Map<T, Promise<R>>();
  let previous: Promise<unknown> = Promise.resolve();
  for (const round of roundsByKey(items, opts.keyOf)) {
    const committed = previous.then(() => commitRound(round, opts));
    round.forEach((item, i) =>
      results.set(
        item,
        committed.then((each) => each[i]!),
      ),
    );
    previous = committed.then((each) => Promise.allSettled(each));
  }
  return { results: items.map((item) => results.get(item)!), settled: previous };
}

/** The round in one commit; if that fails (or it is a lone item), each item alone, side by side. */
async function commitRound<T, R>(round: T[], opts: GroupCommitOptions<T, R>): Promise<Promise<R>[]> {
  if (round.length > 1) {
    const committed = await opts.commit(round).catch(() => undefined);
    if (committed) return committed.map((result) => Promise.resolve(result));
  }
  return round.map((item) => opts.commit([item]).then((alone) => alone[0]!));
}

/** The first item of each key in the first round, the second in the next, and so on. */
function roundsByKey<T>(items: readonly T[], keyOf: (item: T) => string | number): T[][] {
  const rounds: T[][] = [];
  const seen = new Map<string | number, number>();
  for (const item of items) {
    const key = keyOf(item);
    const round = seen.get(key) ?? 0;
    seen.set(key, round + 1);
    (rounds[round] ??= []).push(item);
  }
  return rounds;
}
