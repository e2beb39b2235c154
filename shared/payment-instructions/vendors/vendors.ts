// Which adapter serves which vendor, and the one way the worker reaches a vendor: within the
// organisation's share of calls, through the vendor's breaker.
import { unconfiguredVendors, type Config } from '../../platform/config';
import { ValidationError } from '../../platform/errors';
import type { CreatePaymentInstruction, Vendor } from '../payment-instruction.schemas';
import { createStripeAdapter } from './stripe.adapter';
import type { PaymentVendorAdapter, VendorConfig, VendorDetails } from './vendor-adapter';
import { callVendor } from './vendor-breakers';
import { withinOrganisationShare } from './vendor-call-limits';

const FACTORIES: Record<Vendor, (config: VendorConfig) => PaymentVendorAdapter> = {
  STRIPE: createStripeAdapter,
};

// One adapter (one SDK client with its keep-alive agent) per vendor per configuration, built on first use.
const adapters = new WeakMap<VendorConfig, Map<Vendor, PaymentVendorAdapter>>();

function adapterFor(config: VendorConfig, vendor: Vendor): PaymentVendorAdapter {
  let byVendor = adapters.get(config);
  if (!byVendor) adapters.set(config, (byVendor = new Map<Vendor, PaymentVendorAdapter>()));
  let adapter = byVendor.get(vendor);
  if (!adapter) byVendor.set(vendor, (adapter = FACTORIES[vendor](config)));
  return adapter;
}

/**
 * A vendor whose credentials this service was not given (STRIPE_SECRET_KEY unset): the spec's 400 for a
 * persistent failure to reach the vendor, answered at once. The vendor is not asked, so the breaker
 * neither counts it nor opens, and nothing is written; once the key is set, the same request works.
 */
const vendorNotConfigured = (vendor: string): ValidationError =>
  ValidationError.single(
    'vendor',
    'vendor_not_configured',
    `Payment vendor ${vendor} is not configured on this service, so its payment instructions cannot be verified. Ask the platform team to set its key (STRIPE_SECRET_KEY), or point the service at a local fake for a rehearsal.`,
  );

/**
 * Asks the vendor whether the instruction exists and is usable; returns the details to store. The
 * call takes one of the organisation's vendor-call slots, then goes through the vendor's breaker, and
 * gives up after `timeoutMs` (vendor-wait.ts).
 */
export function verifyAtVendor(
  config: VendorConfig & Pick<Config, 'VENDOR_CALLS_PER_ORGANISATION'>,
  instruction: Pick<CreatePaymentInstruction, 'vendor' | 'type' | 'reference'>,
  organisationId: number,
  timeoutMs: number,
): Promise<VendorDetails> {
  if (unconfiguredVendors(config).includes(instruction.vendor))
    return Promise.reject(vendorNotConfigured(instruction.vendor));
  const adapter = adapterFor(config, instruction.vendor);
  return withinOrganisationShare(instruction.vendor, organisationId, config.VENDOR_CALLS_PER_ORGANISATION, () =>
    callVendor(
      instruction.vendor,
      () => adapter.fetchInstruction(instruction.reference, instruction.type, timeoutMs),
      config.VENDOR_TIMEOUT_MS,
    ),
  );
}
