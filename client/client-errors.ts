// Errors that end a command with a stated exit code instead of a stack trace.

/** The command line or its inputs are wrong: exit code 2, nothing sent. */
export class UsageError extends Error {}

/** The run cannot go on (the API key is refused, the journal is unreadable): stops like an interruption. */
export class FatalError extends Error {}

export const EXIT = { ok: 0, itemsFailed: 1, usage: 2, interrupted: 3 } as const;
