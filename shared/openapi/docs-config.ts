import type { Config } from '../platform/config';
import type { StreamShareConfig } from '../platform/stream-shares';

/** The limits the document states, as configured for the process serving it. */
export type DocsConfig = Pick<
  Config,
  | 'MAX_ITEMS_PER_REQUEST'
  | 'BODY_LIMIT_BYTES'
  | 'RESULT_WAIT_MS'
  | 'ORG_RATE_LIMIT_PER_MINUTE'
  | 'TOKEN_RATE_LIMIT_PER_MINUTE'
  | 'TOKEN_TTL_SECONDS'
  | 'REFRESH_TOKEN_TTL_SECONDS'
  | 'QUEUED_REQUESTS_PER_ORGANISATION'
> &
  StreamShareConfig;
