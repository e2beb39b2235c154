// Option groups more than one command takes, each declared once. A command spreads into its own table
// the groups it uses; its help then lists them with its own options.
import path from 'node:path';
import type { OptionTable } from '../../shared/cli/options';

/** Where the service is and how to sign in, and how long to keep trying a request. */
export const CONNECTION = {
  url: {
    type: 'string',
    arg: 'URL',
    help: 'the service (or DATA_IMPORT_URL): https, or http to this machine only (127.0.0.0/8, ::1, localhost)',
  },
  'allow-insecure-http': {
    type: 'boolean',
    help: 'allow http to another host (the API key and the data then travel in clear)',
  },
  'api-key-file': { type: 'string', arg: 'FILE', help: 'the API key on its first line (or DATA_IMPORT_API_KEY)' },
  'retry-deadline': {
    type: 'string',
    arg: 'SECONDS',
    help: 'how long one request is retried before it is left unfinished',
    default: 600,
    int: [0, 7 * 86_400],
  },
  'request-timeout': {
    type: 'string',
    arg: 'SECONDS',
    help: 'how long one attempt waits for its answer',
    default: 60,
    int: [1, 3600],
  },
} as const satisfies OptionTable;

export const RUNS_DIR = {
  'runs-dir': {
    type: 'string',
    arg: 'DIR',
    help: 'where journals go by default, and where --latest and reconcile look',
    default: 'data-import-runs',
  },
} as const satisfies OptionTable;

export const runsDirOf = (values: { 'runs-dir': string }) => path.resolve(values['runs-dir']);

export const JSON_OUTPUT = {
  json: { type: 'boolean', help: 'machine-readable progress and summary (JSON lines on stdout)' },
} as const satisfies OptionTable;

export const FORMAT = {
  format: { type: 'string', arg: 'ndjson|csv', help: 'the input format (otherwise csv for a .csv file, else ndjson)' },
} as const satisfies OptionTable;

/** How a run goes (send and resume): not stored in the journal, so a resume may change them. */
export const RUN_SETTINGS = {
  'progress-interval': {
    type: 'string',
    arg: 'SECONDS',
    help: 'how often progress is printed when not on a terminal',
    default: 10,
    int: [1, 3600],
  },
  'max-open-accounts': {
    type: 'string',
    arg: 'N',
    help: 'accounts whose batch may wait for more items while the file is read',
    default: 2000,
    int: [1, 100_000],
  },
} as const satisfies OptionTable;
