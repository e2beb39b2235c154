// Vendor look-ups in flight per organisation in this worker process. Every tenant shares one vendor
// account (its rate limit) and one breaker per vendor: without a share each, one tenant's burst could
// draw the vendor's 429s and time-outs that open the breaker for everyone. A call over the share is
// not made: the job is parked briefly (like a job meeting an open breaker) and spends no attempt.
import { TransientError } from '../../platform/errors';
import type { Vendor } from '../payment-instruction.schemas';

/** How long a job over its organisation's share waits before trying again (plus up to as much jitter). */
const PARK_MS = 250;

export class VendorCallsBusyError extends TransientError {
  constructor(
    readonly vendor: Vendor,
    readonly retryAt: number,
  ) {
    super(
      'vendor_unavailable',
      `The organisation's calls to ${vendor} are at their limit. Retry the request as it is.`,
    );
  }
}

const inFlight = new Map<number, number>();

/** Runs `call` within the organisation's share of `limit` concurrent vendor calls, or throws VendorCallsBusyError. */
export async function withinOrganisationShare<T>(
  vendor: Vendor,
  organisationId: number,
  limit: number,
  call: () => Promise<T>,
): Promise<T> {
  const held = inFlight.get(organisationId) ?? 0;
  if (held >= limit) throw new VendorCallsBusyError(vendor, Date.now() + PARK_MS + Math.floor(Math.random() * PARK_MS));
  inFlight.set(organisationId, held + 1);
  try {
    return await call();
  } finally {
    const left = (inFlight.get(organisationId) ?? 1) - 1;
    if (left === 0) inFlight.delete(organisationId);
    else inFlight.set(organisationId, left);
  }
}
