// A command of `data-import`: its name, arguments, one-line summary and option table, and what it does.
// The option table, its parsing and its help lines are the repository's one framework (shared/cli/options.ts).
// `run` takes the words after the command's name; `--help` prints the help generated from the table.
import { writeOut } from '../terminal-text';
import {
  asksForHelp,
  HELP,
  optionLines,
  parseOptions,
  type OptionTable,
  type ParsedCommand,
} from '../../shared/cli/options';
import { PROGRAM } from './program';

export interface Command {
  name: string;
  /** The arguments as the help shows them: `<kind> <file>`. */
  args: string;
  summary: string;
  options: OptionTable;
  /** The whole help text of this command. */
  help(): string;
  run(args: string[]): Promise<number>;
}

interface CommandDefinition<T extends OptionTable> {
  name: string;
  args: string;
  summary: string;
  /** Further lines of help, after the summary. */
  details?: string[];
  options: T;
  action(parsed: ParsedCommand<T>): Promise<number>;
}

export function defineCommand<const T extends OptionTable>(def: CommandDefinition<T>): Command {
  const options = { ...def.options, ...HELP };
  const help = () =>
    [
      `usage: ${PROGRAM} ${def.name} ${def.args} [options]`,
      '',
      def.summary,
      ...(def.details ?? []),
      '',
      'options:',
      ...optionLines(options),
      '',
      EXIT_CODES,
    ].join('\n');
  return {
    name: def.name,
    args: def.args,
    summary: def.summary,
    options,
    help,
    run: async (args) => {
      if (asksForHelp(args)) {
        writeOut(help());
        return 0;
      }
      return def.action(parseOptions('data-import', def.name, def.options, args));
    },
  };
}

export const EXIT_CODES = `exit codes: 0 everything succeeded, 1 some items failed, differ from what is stored (differs.ndjson) or are
  unprocessed, 2 usage error, 3 interrupted or the service's answer unusable (a redirect, a malformed figure)
`;
