// Group commit: the jobs a worker process runs at the same time share one database transaction, so a
// burst of N requests costs one BEGIN, one set of locks and statements, and one COMMIT instead of N.
//
// Items that arrive while the process's groups are all committing wait and form the next group; an
// item that arrives while a slot is free is dispatched after the current turn of the event loop (so
// the others of the same burst join it). A lone item is therefore never delayed, and under load the
// groups grow to what the commits let pile up (at most `maxGroup`). Two items with the same key (the
// same account) never share a transaction: the later one goes into a following round, because its
// work must see what the earlier one wrote. When a group's transaction fails, each of its items is run
// alone, so one failing item (a poison request, a lock time-out) fails only itself.
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
  const loader = new DataLoader<T, R>(
    async (items) => {
      committing++;
      try {
        return await commitInRounds(items, opts);
      } finally {
        committing--;
        queued.shift()?.();
      }
    },
    {
      cache: false,
      maxBatchSize: opts.maxGroup,
      batchScheduleFn: (dispatch) => setImmediate(() => dispatchWhenFree(dispatch)),
    },
  );
  return { run: (item) => loader.load(item) };
}

/** Results in the items' order: a value, or the Error that item alone failed with. */
async function commitInRounds<T, R>(items: readonly T[], opts: GroupCommitOptions<T, R>): Promise<(R | Error)[]> {
  const results = new Map<T, R | Error>();
  for (const round of roundsByKey(items, opts.keyOf)) {
    if (round.length === 1) {
      results.set(round[0]!, await commitAlone(round[0]!, opts));
      continue;
    }
    const committed = await opts.commit(round).catch(() => undefined);
    if (committed) round.forEach((item, i) => results.set(item, committed[i]!));
    else for (const item of round) results.set(item, await commitAlone(item, opts));
  }
  return items.map((item) => results.get(item)!);
}

async function commitAlone<T, R>(item: T, opts: GroupCommitOptions<T, R>): Promise<R | Error> {
  try {
    return (await opts.commit([item]))[0]!;
  } catch (err) {
    return err instanceof Error ? err : new Error(String(err));
  }
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
