// One opossum circuit breaker per vendor per process. Breaker state is deliberately process-local: each
// worker replica learns on its own that a vendor is failing (a few calls each), which needs no shared
// store and cannot wedge every replica on one stale flag.
import type { Metrics } from '../../platform/metrics';
import CircuitBreaker from 'opossum';
import { TransientError, ValidationError } from '../../platform/errors';
import { VENDOR_TYPES, type Vendor } from '../payment-instruction.schemas';

export interface BreakerSettings {
  /** How long an open breaker rejects calls before it lets one trial call through (half-open). */
  resetTimeoutMs: number;
  /** Calls needed in the rolling window before the error rate may open the breaker. */
  volumeThreshold: number;
  /** Failing share of calls in the window, in percent, above which the breaker opens. */
  errorThresholdPercentage: number;
  rollingWindowMs: number;
}

const DEFAULT_BREAKER_SETTINGS: BreakerSettings = {
  resetTimeoutMs: 10_000,
  volumeThreshold: 5,
  errorThresholdPercentage: 50,
  rollingWindowMs: 10_000,
};

export type BreakerState = 'closed' | 'open' | 'halfOpen';

/** The breaker refused the call: the vendor was not asked. `retryAt` (epoch ms) is when asking makes sense again. */
export class VendorCircuitOpenError extends TransientError {
  constructor(
    readonly vendor: Vendor,
    readonly retryAt: number,
  ) {
    super(
      'vendor_unavailable',
      `Payment vendor ${vendor} is failing; calls to it are paused. Retry the request as it is.`,
    );
  }
}

type Call = () => Promise<unknown>;

interface Guard {
  breaker: CircuitBreaker<[Call], unknown>;
  openedAt: number;
  /** Calls the breaker let through that have not settled yet. */
  inFlight: number;
}

const guards = new Map<Vendor, Guard>();
let settings = DEFAULT_BREAKER_SETTINGS;

function guardFor(vendor: Vendor): Guard {
  const existing = guards.get(vendor);
  if (existing) return existing;
  const breaker = new CircuitBreaker<[Call], unknown>(
    async (call) => {
      guard.inFlight += 1;
      try {
        return await call();
      } finally {
        guard.inFlight -= 1;
      }
    },
    {
      name: vendor,
      // The adapters' SDK timeouts (VENDOR_TIMEOUT_MS) bound each call; a second clock here would only race them.
      timeout: false,
      resetTimeout: settings.resetTimeoutMs,
      volumeThreshold: settings.volumeThreshold,
      errorThresholdPercentage: settings.errorThresholdPercentage,
      rollingCountTimeout: settings.rollingWindowMs,
      enableSnapshots: false,
      // The vendor answering "no such instruction" is a healthy vendor: only faults count.
      errorFilter: (err: unknown) => err instanceof ValidationError,
    },
  );
  const guard: Guard = { breaker, openedAt: 0, inFlight: 0 };
  breaker.on('open', () => (guard.openedAt = Date.now()));
  guards.set(vendor, guard);
  return guard;
}

/**
 * Runs `call` through the vendor's breaker. When the breaker refuses, throws VendorCircuitOpenError;
 * `probeMs` bounds a half-open trial call already in flight (the vendor timeout).
 */
export async function callVendor<T>(vendor: Vendor, call: () => Promise<T>, probeMs: number): Promise<T> {
  const guard = guardFor(vendor);
  try {
    return (await guard.breaker.fire(call)) as T;
  } catch (err) {
    if ((err as { code?: string }).code !== 'EOPENBREAKER') throw err;
    const retryAt = guard.breaker.opened ? guard.openedAt + settings.resetTimeoutMs : Date.now() + probeMs;
    throw new VendorCircuitOpenError(vendor, retryAt);
  }
}

/** Every vendor's breaker state in this process, for metrics; a vendor not called yet is closed. */
export function vendorBreakerStates(): Record<Vendor, BreakerState> {
  const states = {} as Record<Vendor, BreakerState>;
  for (const vendor of Object.keys(VENDOR_TYPES) as Vendor[]) {
    const breaker = guards.get(vendor)?.breaker;
    states[vendor] = breaker?.opened ? 'open' : breaker?.halfOpen ? 'halfOpen' : 'closed';
  }
  return states;
}

/** Calls to each vendor let through by this process's breaker and not settled yet; the breaker's state alone
 * does not say whether a call sent before it opened is still on its way. */
export function vendorCallsInFlight(): Record<Vendor, number> {
  const counts = {} as Record<Vendor, number>;
  for (const vendor of Object.keys(VENDOR_TYPES) as Vendor[]) counts[vendor] = guards.get(vendor)?.inFlight ?? 0;
  return counts;
}

/** Drops every breaker (stopping their timers); the next calls build fresh ones with these settings. */
export function resetVendorBreakers(overrides: Partial<BreakerSettings> = {}): void {
  for (const { breaker } of guards.values()) breaker.shutdown();
  guards.clear();
  settings = { ...DEFAULT_BREAKER_SETTINGS, ...overrides };
}

/**
 * Copies this process's breaker states into the circuit_breaker_state gauge (1 = current state) and the
 * calls on their way to each vendor into vendor_calls_in_flight.
 */
export function recordBreakerStates(metrics: Pick<Metrics, 'breakerState' | 'vendorCallsInFlight'>): void {
  for (const [vendor, current] of Object.entries(vendorBreakerStates())) {
    for (const state of ['closed', 'open', 'halfOpen'] as const)
      metrics.breakerState.set({ vendor, state }, state === current ? 1 : 0);
  }
  for (const [vendor, calls] of Object.entries(vendorCallsInFlight()))
    metrics.vendorCallsInFlight.set({ vendor }, calls);
}
