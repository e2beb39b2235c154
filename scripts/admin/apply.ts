// `admin apply <file>`: a whole JSON description in one transaction, or an NDJSON/CSV file of accounts in chunks.
import { applyJsonFile } from '../../shared/admin/apply.use-case';
import { formatOf } from '../../shared/admin/record-file';
import { loadAccountFile } from './accounts';
import type { Command } from './command';

export const APPLY_COMMANDS: Record<string, Command> = {
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
};
