// The payment vendor's stand-in for the tests: the same fake `npm run fake-vendor` serves
// (scripts/fake-vendor/fake-stripe.ts), started in-process on a free port.
export { REFUSAL_WITH_CARD_DETAILS, startFakeStripe, type FakeStripe } from '../../scripts/fake-vendor/fake-stripe';
