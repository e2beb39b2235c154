// The platform team's CLI: `npm run --silent admin -- <command> [arguments] [options]`.
// Parses the command line and calls a use-case in shared/admin; the use-case validates. Prints one
// JSON document on stdout (help is text); on failure prints the error on stderr and exits non-zero
// (1: refused or failed; 2: the command line itself is wrong). Migrates first when migrations are
// pending, so a fresh database works and a migrated one costs one read (with MIGRATE_ON_START=false
// it only checks that none is pending, as the service does). The commands themselves are declared by
// group in scripts/admin/.
import { asksForHelp, parseOptions, UsageError } from '../shared/cli/options';
import type { Database } from '../shared/platform/db';
import { AppError, ValidationError } from '../shared/platform/errors';
import { ACCOUNT_COMMANDS } from './admin/accounts';
import { API_KEY_COMMANDS } from './admin/api-keys';
import { APPLY_COMMANDS } from './admin/apply';
import type { Command, Values } from './admin/command';
import { ORGANISATION_COMMANDS } from './admin/organisations';
import { STAFF_COMMANDS } from './admin/staff';
import { SUPPLIER_COMMANDS } from './admin/suppliers';

// In the order `admin help` lists them.
const COMMANDS: Record<string, Command> = {
  ...APPLY_COMMANDS,
  ...SUPPLIER_COMMANDS,
  ...ORGANISATION_COMMANDS,
  ...API_KEY_COMMANDS,
  ...ACCOUNT_COMMANDS,
  ...STAFF_COMMANDS,
};

function usage(name: string, c: Command): string {
  return ['admin', name, ...c.args, c.optionsUsage ?? ''].filter(Boolean).join(' ');
}

const USAGE = 'npm run --silent admin -- <command> [arguments] [options]';

function helpText(): string {
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${usage(name, c)}\n      ${c.description}`);
  return [
    `usage: ${USAGE}`,
    '',
    'Commands:',
    '  admin help\n      This list. `admin <command> --help` explains one command.',
    ...lines,
    '',
    'Output is one JSON document on stdout; errors go to stderr as `admin <command>: <field>: <detail> [<code>]`.',
    'Exit codes: 0 done, 1 refused or failed, 2 the command line is wrong.',
    '',
  ].join('\n');
}

function commandHelp(name: string, c: Command): string {
  return [`usage: ${usage(name, c)}`, '', c.description, ...(c.details ? ['', c.details] : []), ''].join('\n');
}

function parseCommandLine(argv: string[]): {
  name: string;
  command: Command;
  args: string[];
  values: Values;
  help: boolean;
} {
  const name = [argv.slice(0, 2).join(' '), argv[0] ?? ''].find((n) => COMMANDS[n]);
  if (!name) throw new UsageError(`unknown command "${argv.slice(0, 2).join(' ')}"; run \`admin help\` for the list`);
  const command = COMMANDS[name]!;
  const rest = argv.slice(name.split(' ').length);
  if (asksForHelp(rest)) return { name, command, args: [], values: {}, help: true };
  let parsed;
  try {
    parsed = parseOptions('admin', name, command.options ?? {}, rest);
  } catch (err) {
    throw new UsageError(`${(err as Error).message}\nusage: ${usage(name, command)}`);
  }
  const count = parsed.positionals.length;
  const fromFile = command.takesFile === true && parsed.values.file !== undefined;
  const variadic = command.args.some((a) => a.endsWith('...'));
  const expected = fromFile ? 0 : command.args.length;
  if (count < expected || ((fromFile || !variadic) && count > expected)) {
    const wanted = fromFile ? 'no arguments with --file' : command.args.join(', ') || 'no arguments';
    throw new UsageError(`expected ${wanted}, got ${count} argument(s)\nusage: ${usage(name, command)}`);
  }
  return { name, command, args: parsed.positionals, values: parsed.values, help: false };
}

function errorLines(err: unknown): string {
  if (err instanceof ValidationError) return err.errors.map((e) => `${e.attr}: ${e.detail} [${e.code}]`).join('\n');
  if (err instanceof AppError) return `${err.message} [${err.code}]`;
  return (err as Error).message;
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    process.stdout.write(helpText());
    return 0;
  }
  let cli;
  try {
    cli = parseCommandLine(argv);
  } catch (err) {
    process.stderr.write(`admin: ${(err as Error).message}\n`);
    return 2;
  }
  if (cli.help) {
    process.stdout.write(commandHelp(cli.name, cli.command));
    return 0;
  }
  let db: Database | undefined;
  try {
    // Loaded only to run a command: help needs none of them (the Prisma client is most of a start).
    const [{ hasPendingMigrations, migrate, schemaProblem }, { loadConfig }, { createDatabase }, { checkPostgres }] =
      await Promise.all([
        import('../prisma/migrate'),
        import('../shared/platform/config'),
        import('../shared/platform/db'),
        import('../shared/platform/preflight'),
      ]);
    const config = loadConfig();
    // As the service: migrate first (creating a missing database), or with MIGRATE_ON_START=false
    // (a runtime role) only check that the schema is this build's.
    await checkPostgres(config.DATABASE_URL, { mayBeMissing: config.MIGRATE_ON_START });
    if (!config.MIGRATE_ON_START) {
      const problem = await schemaProblem(config.DATABASE_URL);
      if (problem !== undefined) throw new Error(problem);
    } else if (await hasPendingMigrations(config.DATABASE_URL)) await migrate(config.DATABASE_URL);
    db = createDatabase({ ...config, DB_POOL_SIZE: 2 });
    const result = await cli.command.run(db, cli.args, cli.values);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } catch (err) {
    const lines = errorLines(err).split('\n');
    process.stderr.write(lines.map((l) => `admin ${cli.name}: ${l}\n`).join(''));
    return 1;
  } finally {
    await db?.close();
  }
}

// Exit as soon as the output is flushed and the pool is closed, rather than waiting ~0.5 s for
// PostgreSQL to close sockets that are already ended.
void main(process.argv.slice(2)).then((code) => {
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
