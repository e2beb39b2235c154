// The platform team's CLI: `npm run --silent admin -- <command> [arguments] [options]`.
// Parses the command line and calls a use-case in shared/admin; the use-case validates. Prints one
// JSON document on stdout (help is text); on failure prints the error on stderr and exits non-zero
// (1: refused or failed; 2: the command line itself is wrong). Migrates first when migrations are
// pending, so a fresh database works and a migrated one costs one read (with MIGRATE_ON_START=false
// it only checks that none is pending, as the service does).
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { hasPendingMigrations, migrate, schemaProblem } from '../prisma/migrate';
import { applyAccountFile, type AccountFileReport } from '../shared/admin/account-file.use-case';
import { putAccount, listAccounts, showAccount } from '../shared/admin/accounts.use-cases';
import { applyJsonFile } from '../shared/admin/apply.use-case';
import { formatOf } from '../shared/admin/record-file';
import {
  assignSuppliers,
  createApiKey,
  createOrganisation,
  disableOrganisation,
  enableOrganisation,
  listApiKeys,
  listOrganisations,
  revokeApiKey,
  unassignSuppliers,
} from '../shared/admin/organisations.use-cases';
import { createSupplier, listSuppliers, updateSupplier } from '../shared/admin/suppliers.use-cases';
import { loadConfig } from '../shared/platform/config';
import { createDatabase, type Database } from '../shared/platform/db';
import { AppError, ValidationError } from '../shared/platform/errors';
import { checkPostgres } from '../shared/platform/preflight';
import { readPasswordFrom } from '../shared/staff/password';
import {
  createStaffUser,
  disableStaffUser,
  enableStaffUser,
  listStaffUsers,
  setStaffPassword,
} from '../shared/staff/staff.use-cases';

type Values = Record<string, string | boolean | (string | boolean)[] | undefined>;

interface Command {
  /** Positionals as usage shows them: `<name>` required, `<name>...` one or more. */
  args: string[];
  options?: NonNullable<ParseArgsConfig['options']>;
  optionsUsage?: string;
  description: string;
  /** More words for `admin <command> --help`. */
  details?: string;
  /** `--file <accounts.ndjson|.csv>` stands in for the positionals. */
  takesFile?: boolean;
  run(db: Database, args: string[], values: Values): Promise<unknown>;
}

const str = (v: Values[string]) => (typeof v === 'string' ? v : undefined);
const ref = ([import_supplier, external_account_number]: string[]) => ({ import_supplier, external_account_number });
type AccountState = 'staged' | 'in_progress' | 'failed' | 'imported';

/** The NDJSON/CSV path: chunks commit as they go, each with a progress line on stderr. */
async function loadAccountFile(db: Database, file: string, state?: AccountState): Promise<AccountFileReport> {
  const format = formatOf(file);
  if (format !== 'ndjson' && format !== 'csv') {
    throw ValidationError.single(
      'file',
      'unsupported_format',
      `${file}: use .ndjson (or .jsonl) or .csv${state ? '' : ', or .json'}.`,
    );
  }
  const report = await applyAccountFile(db, file, format, {
    state,
    onChunk: (r, line) =>
      process.stderr.write(
        `admin: committed to line ${line}: ${r.accounts} accounts (${r.created} created, ${r.updated} updated, ` +
          `${r.unchanged} unchanged) in ${r.seconds.toFixed(1)} s, ${Math.round(r.accounts / Math.max(r.seconds, 0.001))}/s\n`,
      ),
  });
  if (report.unchanged > 0)
    process.stderr.write(`admin: skipped ${report.unchanged} accounts already as the file describes them\n`);
  return report;
}

const FILE_OPTION = { file: { type: 'string' } } as const;
const setState = (state: AccountState) => (db: Database, args: string[], o: Values) =>
  str(o.file) !== undefined ? loadAccountFile(db, str(o.file)!, state) : putAccount(db, { ...ref(args), state });
const stdinPassword = async (o: Values) => (o['password-stdin'] === true ? readPasswordFrom(process.stdin) : undefined);

const FILE_DETAILS = [
  'With --file, every account of an NDJSON or CSV file (fields as in `admin apply --help`; a line that',
  'gives another state is refused) gets this state, streamed and committed in chunks like `admin apply`.',
].join('\n');

function fileInput(state: AccountState): Pick<Command, 'options' | 'optionsUsage' | 'details' | 'takesFile' | 'run'> {
  return {
    options: FILE_OPTION,
    optionsUsage: '| --file <accounts.ndjson|.csv>',
    details: FILE_DETAILS,
    takesFile: true,
    run: setState(state),
  };
}

const COMMANDS: Record<string, Command> = {
  apply: {
    args: ['<file.json|file.ndjson|file.csv>'],
    description:
      'Upsert the suppliers, organisations, products and accounts a JSON file describes (all or nothing), or the accounts of an NDJSON or CSV file of any size (streamed, committed in chunks).',
    details: [
      'A .json file holds {suppliers, organisations, products, accounts} and is applied in one transaction:',
      'any error changes nothing. Applying it again changes nothing.',
      '',
      'A .ndjson (.jsonl) file holds one account per line; a .csv file has a header row naming the fields',
      '(import_supplier, external_account_number, state, platform_account_number, account_created_at,',
      'open_statement_from; an empty cell is an absent field). It is read as a stream and committed in',
      'chunks of 2,000 accounts, each with a progress line on stderr. A bad line fails its chunk: the',
      'chunks before it stay committed, the error names the line, and running the same file again after',
      'fixing it skips what is already committed (it says how many) and continues.',
    ].join('\n'),
    run: (db, [file]) => (formatOf(file!) === 'json' ? applyJsonFile(db, file!) : loadAccountFile(db, file!)),
  },
  'suppliers create': {
    args: ['<code>'],
    options: { status: { type: 'string' }, 'document-root': { type: 'string' }, 'send-emails': { type: 'boolean' } },
    optionsUsage: '--document-root <path> [--status Ongoing|Paused|Complete] [--send-emails]',
    description: 'Create an import supplier with its own document root (status Ongoing and e-mails off unless given).',
    run: (db, [code], o) =>
      createSupplier(db, {
        code,
        status: str(o.status),
        document_root: str(o['document-root']),
        send_emails: o['send-emails'] === true,
      }),
  },
  'suppliers set-status': {
    args: ['<code>', '<Ongoing|Paused|Complete>'],
    description: "Set a supplier's migration status.",
    run: (db, [code, status]) => updateSupplier(db, { code, status }),
  },
  'suppliers set-document-root': {
    args: ['<code>', '<path>'],
    description: "Set a supplier's document root in the bucket ('' for the bucket itself).",
    run: (db, [code, root]) => updateSupplier(db, { code, document_root: root }),
  },
  'suppliers set-send-emails': {
    args: ['<code>', '<true|false>'],
    description: 'Turn automated customer e-mails on migration on or off.',
    run: (db, [code, flag]) => updateSupplier(db, { code, send_emails: flag }),
  },
  'suppliers list': { args: [], description: 'List import suppliers.', run: (db) => listSuppliers(db) },
  'organisations create': {
    args: ['<name>'],
    options: { supplier: { type: 'string', multiple: true }, label: { type: 'string' } },
    optionsUsage: '[--supplier <code>]... [--label <key label>]',
    description: 'Create an organisation with its suppliers and its first API key (printed this once).',
    run: (db, [name], o) => createOrganisation(db, { name, suppliers: o.supplier ?? [], label: str(o.label) }),
  },
  'organisations assign': {
    args: ['<name>', '<supplier>...'],
    description: 'Let an organisation use these suppliers.',
    run: (db, [organisation, ...suppliers]) => assignSuppliers(db, { organisation, suppliers }),
  },
  'organisations unassign': {
    args: ['<name>', '<supplier>...'],
    description: 'Stop an organisation using these suppliers.',
    run: (db, [organisation, ...suppliers]) => unassignSuppliers(db, { organisation, suppliers }),
  },
  'organisations list': { args: [], description: 'List organisations.', run: (db) => listOrganisations(db) },
  'organisations disable': {
    args: ['<name>'],
    description:
      'Emergency stop: the organisation gets no token, and its tokens are refused within seconds on every API process.',
    details:
      'Its API keys and refresh tokens are kept: `organisations enable` restores its access as it was. To end one leaked key for good, use `api-keys revoke`.',
    run: (db, [organisation]) => disableOrganisation(db, { organisation }),
  },
  'organisations enable': {
    args: ['<name>'],
    description: 'Let a disabled organisation obtain and use tokens again.',
    run: (db, [organisation]) => enableOrganisation(db, { organisation }),
  },
  'api-keys create': {
    args: ['<organisation>'],
    options: { label: { type: 'string' } },
    optionsUsage: '[--label <text>]',
    description: 'Create an API key for an organisation; the key is printed this once, only its digest is stored.',
    run: (db, [organisation], o) => createApiKey(db, { organisation, label: str(o.label) }),
  },
  'api-keys list': {
    args: [],
    options: { organisation: { type: 'string' } },
    optionsUsage: '[--organisation <name>]',
    description: 'List API keys by id and prefix (never the key).',
    run: (db, _args, o) => listApiKeys(db, { organisation: str(o.organisation) }),
  },
  'api-keys revoke': {
    args: ['<id>'],
    description:
      'Revoke an API key: it signs in no more, its refresh tokens are revoked, and the access tokens it issued are refused within seconds on every API process.',
    run: (db, [id]) => revokeApiKey(db, { id }),
  },
  'accounts stage': {
    args: ['<supplier>', '<external_account_number>'],
    description: 'Stage an account (data supplied, no platform account yet).',
    ...fileInput('staged'),
  },
  'accounts mark-in-progress': {
    args: ['<supplier>', '<external_account_number>'],
    description: 'Mark an account as being migrated.',
    ...fileInput('in_progress'),
  },
  'accounts mark-failed': {
    args: ['<supplier>', '<external_account_number>'],
    description: 'Mark a migration attempt as failed.',
    ...fileInput('failed'),
  },
  'accounts import': {
    args: ['<supplier>', '<external_account_number>'],
    options: {
      'platform-account-number': { type: 'string' },
      'created-at': { type: 'string' },
      'open-statement-from': { type: 'string' },
      ...FILE_OPTION,
    },
    optionsUsage:
      '[--platform-account-number <n>] [--created-at <YYYY-MM-DDTHH:MM:SSZ>] [--open-statement-from <YYYY-MM-DD>] | --file <accounts.ndjson|.csv>',
    description:
      'Import an account: create its platform account (number generated, created now, statement open from then, unless given).',
    details: FILE_DETAILS,
    takesFile: true,
    run: (db, args, o) =>
      str(o.file) !== undefined
        ? loadAccountFile(db, str(o.file)!, 'imported')
        : putAccount(db, {
            ...ref(args),
            state: 'imported',
            platform_account_number: str(o['platform-account-number']),
            account_created_at: str(o['created-at']),
            open_statement_from: str(o['open-statement-from']),
          }),
  },
  'accounts list': {
    args: ['<supplier>'],
    options: { after: { type: 'string' }, limit: { type: 'string' } },
    optionsUsage: '[--after <external_account_number>] [--limit <1-1000, default 100>]',
    description: "One page of a supplier's accounts by external account number; page on with --after.",
    run: (db, [import_supplier], o) => listAccounts(db, { import_supplier, after: str(o.after), limit: str(o.limit) }),
  },
  'accounts show': {
    args: ['<supplier>', '<external_account_number>'],
    description: 'Show one account: state, platform account, statement periods, counts of imported data.',
    run: (db, args) => showAccount(db, ref(args)),
  },
  'staff create': {
    args: ['<username>'],
    options: { role: { type: 'string' }, 'password-stdin': { type: 'boolean' } },
    optionsUsage: '--role operator|support [--password-stdin]',
    description:
      'Create a staff user for /admin/queues and /support/; without --password-stdin a password is generated and printed this once.',
    run: async (db, [username], o) =>
      createStaffUser(db, { username, role: str(o.role), password: await stdinPassword(o) }),
  },
  'staff disable': {
    args: ['<username>'],
    description: "Disable a staff user; the user's sessions end at once.",
    run: (db, [username]) => disableStaffUser(db, { username }),
  },
  'staff enable': {
    args: ['<username>'],
    description: 'Let a disabled staff user sign in again.',
    run: (db, [username]) => enableStaffUser(db, { username }),
  },
  'staff set-password': {
    args: ['<username>'],
    options: { 'password-stdin': { type: 'boolean' } },
    optionsUsage: '[--password-stdin]',
    description:
      "Set a staff user's password (generated and printed this once unless --password-stdin); ends the user's sessions.",
    run: async (db, [username], o) => setStaffPassword(db, { username, password: await stdinPassword(o) }),
  },
  'staff list': {
    args: [],
    description: 'List staff users and their roles (never passwords).',
    run: (db) => listStaffUsers(db),
  },
};

class UsageError extends Error {}

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
  if (rest.includes('--help')) return { name, command, args: [], values: {}, help: true };
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options: command.options ?? {}, allowPositionals: true, strict: true });
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
