// `admin accounts …`: one account at a time by supplier and external number, or a whole NDJSON/CSV file.
import type { AccountFileReport } from '../../shared/admin/account-file.use-case';
import { listAccounts, putAccount, showAccount } from '../../shared/admin/accounts.use-cases';
import { formatOf } from '../../shared/admin/record-file';
import type { Database } from '../../shared/platform/db';
import { ValidationError } from '../../shared/platform/errors';
import { str, type Command, type Values } from './command';

const ref = ([import_supplier, external_account_number]: string[]) => ({ import_supplier, external_account_number });
type AccountState = 'staged' | 'in_progress' | 'failed' | 'imported';

/** The NDJSON/CSV path: chunks commit as they go, each with a progress line on stderr. */
export async function loadAccountFile(db: Database, file: string, state?: AccountState): Promise<AccountFileReport> {
  const format = formatOf(file);
  if (format !== 'ndjson' && format !== 'csv') {
    throw ValidationError.single(
      'file',
      'unsupported_format',
      `${file}: use .ndjson (or .jsonl) or .csv${state ? '' : ', or .json'}.`,
    );
  }
  // Loaded when used, as cancel's below: `admin help` and `--help` need neither (they load BullMQ).
  const { applyAccountFile } = await import('../../shared/admin/account-file.use-case');
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

const FILE_OPTION = {
  file: { type: 'string', arg: 'FILE', help: 'every account of an NDJSON or CSV file instead of one' },
} as const;
const setState = (state: AccountState) => (db: Database, args: string[], o: Values) =>
  str(o.file) !== undefined ? loadAccountFile(db, str(o.file)!, state) : putAccount(db, { ...ref(args), state });

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

export const ACCOUNT_COMMANDS: Record<string, Command> = {
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
      'platform-account-number': {
        type: 'string',
        arg: 'N',
        help: 'the platform account number (generated if absent)',
      },
      'created-at': { type: 'string', arg: 'TIME', help: 'when the platform account was created (now if absent)' },
      'open-statement-from': { type: 'string', arg: 'DATE', help: 'the first day of the open statement' },
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
    options: {
      after: { type: 'string', arg: 'NUMBER', help: 'the external account number the page starts after' },
      limit: { type: 'string', arg: 'N', help: 'accounts per page' },
    },
    optionsUsage: '[--after <external_account_number>] [--limit <1-1000, default 100>]',
    description: "One page of a supplier's accounts by external account number; page on with --after.",
    run: (db, [import_supplier], o) => listAccounts(db, { import_supplier, after: str(o.after), limit: str(o.limit) }),
  },
  'accounts show': {
    args: ['<supplier>', '<external_account_number>'],
    description: 'Show one account: state, platform account, statement periods, counts of imported data.',
    run: (db, args) => showAccount(db, ref(args)),
  },
  'accounts cancel': {
    args: ['<supplier>', '<external_account_number>'],
    description: 'Cancel a PENDING account creation (a v2 schedule): its job, when it starts, creates nothing.',
    details: 'Answers {"cancelled": false} when the creation is not PENDING (running, done, or never scheduled).',
    run: async (db, [supplier, external]) => {
      const { cancelAccountCreation } = await import('../../shared/account-import/account-creation.use-cases');
      return cancelAccountCreation(db, supplier!, external!, new Date());
    },
  },
};
