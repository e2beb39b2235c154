// `admin apply <file>`: a whole JSON description in one transaction, or an NDJSON/CSV file of accounts in chunks.
import { applyJsonFile, MAX_JSON_ACCOUNTS } from '../../shared/admin/apply.use-case';
import { formatOf } from '../../shared/admin/record-file';
import { loadAccountFile } from './accounts';
import type { Command } from './command';

export const APPLY_COMMANDS: Record<string, Command> = {
  apply: {
    args: ['<file.json|file.ndjson|file.csv>'],
    description:
      'Upsert the suppliers, organisations, products, operations teams and accounts a JSON file describes (all or nothing), or the accounts of an NDJSON or CSV file of any size (streamed, committed in chunks).',
    details: [
      'A .json file is applied in one transaction: any error changes nothing, and applying it again',
      'changes nothing. Every section is optional:',
      '  suppliers         [{code, status?: Ongoing|Paused|Complete, document_root, send_emails?}]',
      '  organisations     [{name, api_key?, suppliers?: [supplier codes]}]: an organisation with no',
      '                    active key gets one, printed once; `suppliers` becomes its whole list',
      '  products          [{code, rates: [{rate_band, price_per_unit, valid_from, valid_to?}]}]',
      '  operations_teams  [{name}]: the teams an account may name (operations_team_name); never removed',
      '  accounts          [{import_supplier, external_account_number, state: staged|in_progress|imported|',
      '                    failed, platform_account_number?, account_created_at?, open_statement_from?,',
      '                    stripe_customer?}] (the last four for imported accounts only)',
      `A JSON file takes at most ${MAX_JSON_ACCOUNTS} accounts (a longer list is refused at once, with the`,
      'commands that move it to an NDJSON file); large account lists belong in the streamed form:',
      '',
      'A .ndjson (.jsonl) file holds one account per line; a .csv file has a header row naming the fields',
      '(import_supplier, external_account_number, state, platform_account_number, account_created_at,',
      'open_statement_from, stripe_customer; an empty cell is an absent field). Streamed, committed in',
      'chunks of 2,000 accounts, each with a progress line on stderr. A bad line fails its chunk: the',
      'chunks before it stay committed, the error names the line, and running the same file again after',
      'fixing it skips what is already committed (it says how many) and continues.',
      'Formats in full, with examples: docs/admin.md.',
    ].join('\n'),
    run: (db, [file]) => (formatOf(file!) === 'json' ? applyJsonFile(db, file!) : loadAccountFile(db, file!)),
  },
};
