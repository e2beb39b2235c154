// The command line: one parseArgs over every command's options, then bounds per option. Environment
// variables (DATA_IMPORT_URL, DATA_IMPORT_API_KEY) are read here only, once.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { UsageError } from './client-errors';

export const USAGE = `usage: data-import <command> …

  send <notes|transactions|statements|payment-instructions> <file>
        send a whole NDJSON or CSV file, journalled, retried, resumable
        --batch N (100, max 1000)  --concurrency N (8, max 64)  --journal DIR
        --check-previously-added true|false  --force-add-to-current-statement true|false  --dry-run
        --max-open-accounts N (2000: accounts whose batch may wait for more items)
  resume <journal dir> | --latest    continue a stopped run with the same keys (input checksum checked)
  validate <kind> <file>             check a file offline with the service's schemas; writes failed.ndjson
  reconcile --supplier CODE <input file or journal dir>… --out report.csv
        compare what succeeded (per the journals) with the service's reconciliation; exit 0 only if equal

common options:
  --url URL (or DATA_IMPORT_URL): https, or http to this machine only (127.0.0.0/8, ::1, localhost)
  --allow-insecure-http (http to another host: the API key and the data then travel in clear)
  --api-key-file FILE (or DATA_IMPORT_API_KEY)
  --runs-dir DIR (./data-import-runs: default journals, --latest, reconcile)   --format ndjson|csv
  --json (machine-readable progress and summary)   --progress-interval SECONDS (10)
  --retry-deadline SECONDS (600 per request)   --request-timeout SECONDS (60)

exit codes: 0 everything succeeded, 1 some items failed, differ from what is stored (differs.ndjson) or are
  unprocessed, 2 usage error, 3 interrupted or the service's answer unusable (a redirect, a malformed figure)
`;

const OPTIONS = {
  url: { type: 'string' },
  'allow-insecure-http': { type: 'boolean' },
  'api-key-file': { type: 'string' },
  journal: { type: 'string' },
  'runs-dir': { type: 'string' },
  batch: { type: 'string' },
  concurrency: { type: 'string' },
  'check-previously-added': { type: 'string' },
  'force-add-to-current-statement': { type: 'string' },
  'dry-run': { type: 'boolean' },
  format: { type: 'string' },
  json: { type: 'boolean' },
  'progress-interval': { type: 'string' },
  'retry-deadline': { type: 'string' },
  'request-timeout': { type: 'string' },
  'max-open-accounts': { type: 'string' },
  latest: { type: 'boolean' },
  supplier: { type: 'string' },
  out: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

export interface ParsedArgs {
  command: string;
  positionals: string[];
  values: ReturnType<typeof parse>['values'];
}

const parse = (args: string[]) => parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });

export function parseCommandLine(argv: string[]): ParsedArgs {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const [command = 'help', ...positionals] = parsed.positionals;
  return { command, positionals, values: parsed.values };
}

export function intOption(value: string | undefined, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new UsageError(`--${name} must be a whole number from ${min} to ${max}`);
  }
  return Number(value);
}

export function boolOption(value: string | undefined, name: string): boolean | undefined {
  if (value === undefined) return undefined;
  if (/^(true|1)$/i.test(value)) return true;
  if (/^(false|0)$/i.test(value)) return false;
  throw new UsageError(`--${name} must be true or false`);
}

/**
 * The service's base URL. Plain http carries the API key and every batch readable by anyone on the
 * path, so it is refused unless it stays on this machine or the user says so with --allow-insecure-http.
 */
export function serviceUrl(values: ParsedArgs['values']): string {
  const url = values.url ?? process.env.DATA_IMPORT_URL;
  if (!url) throw new UsageError('no service URL: pass --url or set DATA_IMPORT_URL');
  let parsed: URL | undefined;
  try {
    parsed = url.length <= 2048 && /^https?:\/\/[^\s]+$/i.test(url) ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed) throw new UsageError(`--url is not an http(s) URL: ${url.slice(0, 80)}`);
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname) && !values['allow-insecure-http']) {
    throw new UsageError(
      `--url ${parsed.host} is plain http: the API key and the data would cross the network unencrypted. ` +
        'Use https, or pass --allow-insecure-http if this network is trusted',
    );
  }
  return url.replace(/\/+$/, '');
}

/** URL has already normalised the host: `127.1` reads as 127.0.0.1, IPv6 comes in brackets. */
function isLoopback(hostname: string): boolean {
  const host = hostname.toLowerCase();
  return host === 'localhost' || host === '[::1]' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The key's file holds the key on its first line (a trailing newline is fine). */
export function apiKey(values: ParsedArgs['values']): string {
  let key = process.env.DATA_IMPORT_API_KEY;
  if (values['api-key-file']) {
    try {
      key = readFileSync(values['api-key-file'], 'utf8').slice(0, 4096).split(/\r?\n/)[0];
    } catch (err) {
      throw new UsageError(`cannot read --api-key-file: ${(err as Error).message}`);
    }
  }
  if (!key || key.length > 1024) throw new UsageError('no API key: set DATA_IMPORT_API_KEY or pass --api-key-file');
  return key.trim();
}
