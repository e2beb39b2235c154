// What the HTTP app is built from: a file of its own so that routes can name it without importing
// server.ts, which imports them.
import type { TokenSigner } from '../shared/auth/access-token';
import type { Config } from '../shared/platform/config';
import type { Database } from '../shared/platform/db';
import type { BackoffOptions } from 'bullmq';
import type { JobQueues } from '../shared/platform/queues';
import type { Logger } from '../shared/platform/logger';
import type { Metrics } from '../shared/platform/metrics';
import type { RedisClient } from '../shared/platform/redis';
import type { QueuedRequests } from '../shared/requests/queued-request';
import type { StreamSlots } from './streaming';

export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  redis: RedisClient;
  queues: JobQueues;
  queued: QueuedRequests;
  metrics: Metrics;
  /** Gauges filled at scrape time by parts that live in this process (in-process workers). */
  collectors?: (() => void)[];
  signer?: TokenSigner;
  now?: () => Date;
  /** True once startApi's stop() began draining: every answer then closes its connection. */
  stopping?: () => boolean;
  /** Replaces every queued job's back-off (tests, so that a retried job is not waited out). */
  jobBackoff?: BackoffOptions;
  /** The process's slots for streamed downloads (created from config when not given). */
  streams?: StreamSlots;
}
