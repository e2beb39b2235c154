// Requests of this process waiting for their queued work, by request id. Wake-ups come from the
// queues' completion events (which usually carry the answer, maybe compacted) and from one poll of
// request_results per process for every waiting request (events are lost while Redis reconnects).

export interface Waiter {
  /**
   * Resolves at the next wake-up (at once if one came since the last call) or after `ms`, with what
   * the wake-up carried (an answer, whole or compact) when it carried anything.
   */
  next(ms: number): Promise<unknown>;
  close(): void;
}

interface WaiterState {
  woken: boolean;
  answer?: unknown;
  resolve?: () => void;
}

export interface WaiterRegistry {
  /** Registered before the job is added, so a wake-up that comes while the request is busy is kept. */
  watch(requestId: string): Waiter;
  wake(requestId: string, answer?: unknown): void;
  waitingIds(): string[];
  clear(): void;
}

export function createWaiterRegistry(): WaiterRegistry {
  const waiting = new Map<string, Set<WaiterState>>();
  return {
    watch(requestId) {
      const state: WaiterState = { woken: false };
      const states = waiting.get(requestId) ?? new Set();
      waiting.set(requestId, states);
      states.add(state);
      return {
        next: (ms) => nextWakeUp(state, ms),
        close() {
          states.delete(state);
          if (states.size === 0 && waiting.get(requestId) === states) waiting.delete(requestId);
        },
      };
    },
    wake(requestId, answer) {
      waiting.get(requestId)?.forEach((state) => {
        state.woken = true;
        state.answer ??= answer;
        state.resolve?.();
      });
    },
    waitingIds: () => [...waiting.keys()],
    clear: () => waiting.clear(),
  };
}

function nextWakeUp(state: WaiterState, ms: number): Promise<unknown> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      state.resolve = undefined;
      state.woken = false;
      const answer = state.answer;
      state.answer = undefined;
      resolve(answer);
    };
    const timer = setTimeout(done, state.woken ? 0 : ms);
    state.resolve = done;
  });
}
