// Every error the client raises on purpose, and the exit codes they end a command with.

// The command line or its inputs are wrong: exit code 2, nothing sent (the command-line framework's own error).
export { UsageError } from '../shared/cli/options';

/** The run cannot go on (the API key is refused, the journal is unreadable): stops like an interruption. */
export class FatalError extends Error {}

/** The service is overloaded or down for now: the retry policy waits and tries again. */
export class TransientError extends Error {
  constructor(
    message: string,
    readonly retryAfter: string | null = null,
  ) {
    super(message);
  }
}

/** obtainToken said no to the key or the refresh token (its GraphQL error code). */
export class RefusedError extends Error {
  constructor(readonly code: string) {
    super(`obtainToken refused: ${code}`);
  }
}

export const EXIT = { ok: 0, itemsFailed: 1, usage: 2, interrupted: 3 } as const;
