// The service's address and the API key, from the options or the environment (DATA_IMPORT_URL,
// DATA_IMPORT_API_KEY, read here only).
import { readFileSync } from 'node:fs';
import { UsageError } from '../client-errors';

/**
 * The service's base URL. Plain http carries the API key and every batch readable by anyone on the
 * path, so it is refused unless it stays on this machine or the user says so with --allow-insecure-http.
 */
export function serviceUrl(values: { url?: string; 'allow-insecure-http'?: boolean }): string {
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
export function apiKey(values: { 'api-key-file'?: string }): string {
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
