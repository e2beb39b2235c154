// The one seam between the service and payment vendors. An adapter looks an instruction up at its
// vendor and returns the details worth storing; it classifies every failure, because the worker's
// answer and the vendor's circuit breaker both depend on the class:
// - ValidationError: the vendor answered, and the instruction does not exist or cannot be used. A
//   permanent 400; the vendor is healthy, so it does not count against the breaker.
// - TransientError: the vendor could not be reached, timed out, or answered with a fault (429, 5xx,
//   401/403 for our own credentials). Retried; counts against the breaker.
import type { Config } from '../../platform/config';
import type { InstructionType } from '../payment-instruction.schemas';

/** Plain JSON, stored as the instruction's vendor_details: never the vendor's whole object, never secrets. */
export type VendorDetails = Record<string, string | number | boolean | null>;

export interface PaymentVendorAdapter {
  /** `timeoutMs`: this call's time-out, at most VENDOR_TIMEOUT_MS (shorter when the caller's wait is ending). */
  fetchInstruction(reference: string, type: InstructionType, timeoutMs: number): Promise<VendorDetails>;
}

export type VendorConfig = Pick<Config, 'STRIPE_SECRET_KEY' | 'STRIPE_API_BASE' | 'VENDOR_TIMEOUT_MS'>;
