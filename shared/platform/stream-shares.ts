// How a process's streamed downloads are shared out: plain arithmetic on the configuration, so the
// API's slots (api/streaming.ts) and the OpenAPI document's stated limits cannot disagree.
import type { Config } from './config';

export type StreamShareConfig = Pick<
  Config,
  'DB_POOL_SIZE' | 'LIST_STREAMS_PER_PROCESS' | 'LIST_STREAMS_PER_ORGANISATION' | 'STAFF_STREAMS_PER_PROCESS'
>;

export interface PoolShare {
  /** Slots of the pool in one process. */
  perProcess: number;
  /** Most of them one owner (an organisation, a staff user) may hold at once. */
  perOwner: number;
}

/** Connections of the database pool that streams may never take: short requests always find one. */
const POOL_CONNECTIONS_KEPT_FOR_SHORT_REQUESTS = 2;

/**
 * The most one owner may hold of a pool of `slots`: ⌊(slots − 1) / 4⌋, and at least 1. Two owners then
 * hold at most (slots − 1) / 2, under half the pool, from 5 slots on; a pool of 4 or fewer still gives a
 * lone owner its 1 (and then two owners can reach half: such a pool is too small to share fairly).
 */
export function minorityShare(slots: number): number {
  return Math.max(1, Math.floor((slots - 1) / 4));
}

/**
 * Organisations' streams and staff downloads each get a pool; configured sizes that would let streams
 * hold the whole database pool are lowered, whatever was set, and each pool keeps at least one slot.
 */
export function streamShares(config: StreamShareConfig): { organisations: PoolShare; staff: PoolShare } {
  const forStreams = config.DB_POOL_SIZE - POOL_CONNECTIONS_KEPT_FOR_SHORT_REQUESTS;
  const staff = Math.max(1, Math.min(config.STAFF_STREAMS_PER_PROCESS, forStreams - 1));
  const organisations = Math.max(1, Math.min(config.LIST_STREAMS_PER_PROCESS, forStreams - staff));
  const wanted = config.LIST_STREAMS_PER_ORGANISATION ?? organisations;
  return {
    organisations: { perProcess: organisations, perOwner: Math.min(wanted, minorityShare(organisations)) },
    staff: { perProcess: staff, perOwner: minorityShare(staff) },
  };
}
