// `data-import`: the migration client. Speaks only the service's public HTTP API; imports from shared/
// nothing but schemas and pure helpers (test/client/client-layering.test.ts keeps it so).
import { firstWord } from '../shared/cli/options';
import { EXIT_CODES, type Command } from './cli/command';
import { EXIT, FatalError, UsageError } from './client-errors';
import { COMMANDS } from './commands';
import { KINDS } from './item-kinds';
import { oneLine, writeErr, writeOut } from './terminal-text';
import { PROGRAM } from './cli/program';

export async function main(argv: string[]): Promise<number> {
  let command: Command | undefined;
  try {
    const found = findCommand(argv);
    if (found.name === 'help') {
      const about = COMMANDS.find((c) => c.name === found.rest.find((a) => !a.startsWith('-')));
      writeOut(about ? about.help() : usage());
      return EXIT.ok;
    }
    command = COMMANDS.find((c) => c.name === found.name);
    if (!command) throw new UsageError(`unknown command "${found.name.slice(0, 40)}"`);
    return await command.run(found.rest);
  } catch (err) {
    if (err instanceof UsageError) {
      writeErr(`data-import: ${err.message}\n\n${command ? command.help() : usage()}`);
      return EXIT.usage;
    }
    if (err instanceof FatalError) {
      writeErr(`data-import: ${err.message}\n`);
      return EXIT.interrupted;
    }
    // A message, not a stack trace: the journal holds what a resume needs, and the name says what broke.
    writeErr(`data-import: ${command?.name ?? 'the command'} stopped: ${describeError(err)}\n`);
    return EXIT.interrupted;
  }
}

/** An error's name, message and the code of its cause (a network failure's ECONNRESET…), on one line. */
function describeError(err: unknown): string {
  const e = err as { name?: unknown; message?: unknown; cause?: { code?: unknown; message?: unknown } } | null;
  const message = typeof e?.message === 'string' ? e.message : String(err);
  const cause = [e?.cause?.code, e?.cause?.message].find((c): c is string => typeof c === 'string');
  return oneLine(`${typeof e?.name === 'string' ? e.name : 'Error'}: ${message}${cause ? ` (${cause})` : ''}`, 500);
}

/**
 * The command is the first word that is not an option or an option's value (options may come before
 * it); none, or --help alone, is `help`.
 */
function findCommand(argv: string[]): { name: string; rest: string[] } {
  const everyOption = Object.fromEntries(COMMANDS.flatMap((c) => Object.entries(c.options)));
  const first = firstWord(everyOption, argv);
  return first ? { name: first.word, rest: first.rest } : { name: 'help', rest: [] };
}

/** The usage of the whole client, from each command's own declaration. */
function usage(): string {
  return [
    `usage: ${PROGRAM} <command> [options]`,
    '',
    ...COMMANDS.flatMap((c) => [`  ${c.name} ${c.args}`, `        ${c.summary}`]),
    '',
    `kinds: accounts, ${KINDS.join(', ')}`,
    `each command's options, with their defaults: ${PROGRAM} <command> --help (or ${PROGRAM} help <command>)`,
    'environment: DATA_IMPORT_URL (instead of --url), DATA_IMPORT_API_KEY (instead of --api-key-file)',
    '',
    EXIT_CODES,
  ].join('\n');
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
