// What a send run needs from its command line and session, whatever the kind: where the service is, how
// to sign in and fetch, how progress is shown, the time limits, and the signal that stops it.
import type { Fetcher } from './http/service-fetch';
import type { TokenSource } from './http/token-source';
import type { ProgressReporter } from './progress-reporter';

export interface RunSettings {
  baseUrl: string;
  tokens: TokenSource;
  fetcher: Fetcher;
  progress: ProgressReporter;
  requestTimeoutMs: number;
  retryDeadlineMs: number;
  /** Accounts whose batch (or, for `send accounts`, whose creation) may stay open while the file is read. */
  maxOpenAccounts: number;
  /** Aborted on Ctrl-C: reading stops, requests in flight finish, nothing new starts. */
  stop: AbortSignal;
}
