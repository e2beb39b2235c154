// `data-import`: the migration client. Speaks only the service's public HTTP API; imports from shared/
// nothing but schemas and pure helpers (test/client/client-layering.test.ts keeps it so).
import { parseCommandLine, USAGE } from './cli-args';
import { EXIT, FatalError, UsageError } from './client-errors';
import { reconcileCommand } from './reconcile-command';
import { resumeCommand, sendCommand } from './send-command';
import { writeErr, writeOut } from './terminal-text';
import { validateCommand } from './validate-command';

const COMMANDS = { send: sendCommand, resume: resumeCommand, validate: validateCommand, reconcile: reconcileCommand };

export async function main(argv: string[]): Promise<number> {
  try {
    const args = parseCommandLine(argv);
    if (args.values.help || args.command === 'help') {
      writeOut(USAGE);
      return EXIT.ok;
    }
    const command = COMMANDS[args.command as keyof typeof COMMANDS];
    if (!command) throw new UsageError(`unknown command "${args.command.slice(0, 40)}"`);
    return await command(args);
  } catch (err) {
    if (err instanceof UsageError) {
      writeErr(`data-import: ${err.message}\n\n${USAGE}`);
      return EXIT.usage;
    }
    if (err instanceof FatalError) {
      writeErr(`data-import: ${err.message}\n`);
      return EXIT.interrupted;
    }
    writeErr(`data-import: unexpected error: ${(err as Error).stack ?? String(err)}\n`);
    return EXIT.interrupted;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => (process.exitCode = code));
}
