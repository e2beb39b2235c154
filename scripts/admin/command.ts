// The shape of one admin CLI command: its arguments and options, its help text, and the use-case it calls.
// Options are declared and parsed by the repository's one command-line framework (shared/cli/options.ts).
import type { OptionTable } from '../../shared/cli/options';
import type { Database } from '../../shared/platform/db';

export type Values = Record<string, string | boolean | string[] | number | undefined>;

export interface Command {
  /** Positionals as usage shows them: `<name>` required, `<name>...` one or more. */
  args: string[];
  options?: OptionTable;
  optionsUsage?: string;
  description: string;
  /** More words for `admin <command> --help`. */
  details?: string;
  /** `--file <accounts.ndjson|.csv>` stands in for the positionals. */
  takesFile?: boolean;
  run(db: Database, args: string[], values: Values): Promise<unknown>;
}

/** An option's value when it was given as a string. */
export const str = (v: Values[string]) => (typeof v === 'string' ? v : undefined);
