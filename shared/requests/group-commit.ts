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
import DataLoader from 'dataloader';

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

export function createGroupCommitter<T, R>(opts: GroupCommitOptions<T, R>): GroupCommitter<T, R> {
  let committing = 0;
  const queued: (() => void)[] = [];
  const dispatchWhenFree = (dispatch: () => void) => {
    if (committing < opts.maxInFlight) dispatch();
    else queued.push(dispatch);
  };
  // Each item's value is its own promise, so an item is answered as soon as its own commit is done
  // (not when the slowest of its group is); the group's slot is free once all of them are.
  const loader = new DataLoader<T, Promise<R>>(
    async (items) => {
      committing++;
      const { results, settled } = commitInRounds(items, opts);
      const release = () => {
        committing--;
        queued.shift()?.();
      };
      void settled.then(release, release);
      return results;
    },
    {
      cache: false,
      maxBatchSize: opts.maxGroup,
      batchScheduleFn: (dispatch) => setImmediate(() => dispatchWhenFree(dispatch)),
    },
  );
  return { run: (item) => loader.load(item).then((result) => result) };
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
