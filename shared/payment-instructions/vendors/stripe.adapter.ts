// STRIPE: a CARD instruction's reference is a PaymentMethod id (pm_…). We retrieve it with the official
// SDK and keep the card's identifying details; Stripe never returns the card number, so none is stored.
import Stripe from 'stripe';
import { TransientError, ValidationError } from '../../platform/errors';
import type { PaymentVendorAdapter, VendorConfig, VendorDetails } from './vendor-adapter';

export function createStripeAdapter(config: VendorConfig): PaymentVendorAdapter {
  const base = new URL(config.STRIPE_API_BASE);
  const protocol = base.protocol === 'http:' ? 'http' : 'https';
  const stripe = new Stripe(config.STRIPE_SECRET_KEY, {
    host: base.hostname,
    port: base.port || (protocol === 'http' ? 80 : 443),
    protocol,
    timeout: config.VENDOR_TIMEOUT_MS,
    // BullMQ retries the whole job with backoff, inside the caller's wait; SDK retries would multiply that.
    maxNetworkRetries: 0,
    telemetry: false,
  });

  return {
    async fetchInstruction(reference, _type, timeoutMs) {
      let method: Stripe.PaymentMethod;
      try {
        method = await stripe.paymentMethods.retrieve(reference, {}, { timeout: timeoutMs });
      } catch (err) {
        throw classify(err);
      }
      return cardDetails(method, new Date());
    },
  };
}

function classify(err: unknown): unknown {
  if (!(err instanceof Stripe.errors.StripeError)) return err;
  if (err instanceof Stripe.errors.StripeInvalidRequestError && err.code === 'resource_missing') {
    return rejected('payment_instruction_not_found_at_vendor', 'Stripe has no PaymentMethod with this reference.');
  }
  if (err instanceof Stripe.errors.StripeInvalidRequestError || err instanceof Stripe.errors.StripeCardError) {
    // Stripe's own message may describe the card (brand, last digits, expiry): the caller gets only the
    // reference it sent and a fixed text.
    return rejected('payment_instruction_rejected_by_vendor', 'Stripe refused to look this PaymentMethod up.');
  }
  // 401/403 mean our key is wrong, not the request: like an outage, retrying as-is works once it is fixed.
  return new TransientError(
    'vendor_unavailable',
    `Stripe is unavailable (${err.statusCode ?? err.type}). Retry the request as it is.`,
  );
}

function cardDetails(method: Stripe.PaymentMethod, now: Date): VendorDetails {
  const card = method.card;
  if (method.type !== 'card' || !card) {
    throw rejected('payment_method_not_a_card', 'The PaymentMethod is not a card.');
  }
  // A PaymentMethod without a customer was never attached or has been detached: Stripe will not charge it again.
  if (method.customer === null) {
    throw rejected(
      'payment_method_not_attached',
      'The PaymentMethod is not attached to a Stripe customer, so it cannot be reused.',
    );
  }
  const thisMonth = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
  if (card.exp_year * 12 + card.exp_month < thisMonth) {
    // No expiry date in the answer: the caller sent only the reference, and the card's details are not theirs to learn here.
    throw rejected('payment_method_card_expired', 'The card has expired.');
  }
  return {
    payment_method: method.id,
    customer: typeof method.customer === 'string' ? method.customer : method.customer.id,
    brand: card.brand,
    last4: card.last4,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
    fingerprint: card.fingerprint ?? null,
    funding: card.funding,
    country: card.country,
    livemode: method.livemode,
  };
}

const rejected = (code: string, detail: string) => ValidationError.single('reference', code, detail);
