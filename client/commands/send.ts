// `send <kind> <file>`: starts a run (a new journal directory holding run.json) and executes it.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { defineCommand } from '../cli/command';
import { CONNECTION, FORMAT, JSON_OUTPUT, RUN_SETTINGS, RUNS_DIR, runsDirOf } from '../cli/common-options';
import { UsageError } from '../client-errors';
import { checkCsvHeader } from '../csv-header';
import { formatOf, scanFile } from '../input-reader';
import { isKind, KINDS } from '../item-kinds';
import { accountWindow, ACCOUNT_WINDOW } from '../accounts/account-options';
import { RunJournal, runStamp, type RunMeta } from '../run-journal';
import { executePass, passSettings } from '../run-session';

/** The service's own MAX_ITEMS_PER_REQUEST default. */
const MAX_BATCH = 1000;

export const sendCommand = defineCommand({
  name: 'send',
  args: '<kind> <file>',
  summary: 'send a whole NDJSON or CSV file, journalled, retried, resumable',
  details: [`kinds: ${KINDS.join(', ')}, accounts (NDJSON: one account per line, scheduled and followed)`],
  options: {
    batch: { type: 'string', arg: 'N', help: 'items per request', default: 100, int: [1, MAX_BATCH] },
    concurrency: { type: 'string', arg: 'N', help: 'requests in flight at once', default: 8, int: [1, 64] },
    journal: { type: 'string', arg: 'DIR', help: "the run's journal directory (default: a new one in --runs-dir)" },
    'check-previously-added': {
      type: 'string',
      arg: 'true|false',
      help: 'passed to the transactions endpoint as check_previously_added',
      flag: true,
    },
    'force-add-to-current-statement': {
      type: 'string',
      arg: 'true|false',
      help: 'passed to the transactions endpoint as force_add_to_current_statement',
      flag: true,
    },
    'dry-run': {
      type: 'boolean',
      help: 'the service checks and answers every item as it would, and stores nothing (every kind; accounts: is_dry_run)',
    },
    ...ACCOUNT_WINDOW,
    ...FORMAT,
    ...RUNS_DIR,
    ...RUN_SETTINGS,
    ...CONNECTION,
    ...JSON_OUTPUT,
  },
  async action({ positionals, values }) {
    const [kind, file] = positionals;
    if (!(isKind(kind) || kind === 'accounts') || !file || positionals.length > 2) {
      throw new UsageError(`send takes a kind (${KINDS.join(', ')}, accounts) and one file`);
    }
    const windowOptions = accountWindow(kind, file, values);
    if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
    if (kind !== 'accounts' && formatOf(file, values.format) === 'csv') checkCsvHeader(file, kind);
    const { checksum, lines } = await scanFile(file);
    const stamp = runStamp(new Date());
    const runId = `${kind}-${stamp}-${randomBytes(3).toString('hex')}`;
    const meta: RunMeta = {
      version: 1,
      run_id: runId,
      kind,
      input: path.resolve(file),
      format: formatOf(file, values.format),
      checksum,
      lines,
      batch: values.batch,
      concurrency: values.concurrency,
      options: {
        check_previously_added: values['check-previously-added'],
        force_add_to_current_statement: values['force-add-to-current-statement'],
        ...(values['dry-run'] ? { dry_run: true } : {}),
        ...windowOptions,
      },
      created_at: new Date().toISOString(),
    };
    const settings = passSettings(values);
    const journal = RunJournal.create(path.resolve(values.journal ?? path.join(runsDirOf(values), runId)), meta);
    return executePass(journal, settings);
  },
});
