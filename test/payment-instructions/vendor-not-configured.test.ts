// A service started without the vendor's key (STRIPE_SECRET_KEY unset, the default) answers a payment
// instruction at once with 400 vendor_not_configured: the vendor is not asked, nothing is stored, the
// breaker does not open, the migration client records the failure without retrying, and the operator's
// queue board says "not configured" rather than reporting an outage.
import { classifyAnswer } from '../../client/answer-classifier';
import { vendorBreakerStates } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { createTenant, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';
import { signedIn, startStaffApp } from '../staff/staff-app';
import { card, importAccount, postInstruction, storedInstructions } from './payment-instructions.fixture';

describe('payment instructions with no vendor key', () => {
  let app: TestApp;
  let fake: FakeStripe;
  let tenant: Tenant;

  beforeAll(async () => {
    // The fake is where the service would call, so a call that went out anyway would be counted.
    fake = await startFakeStripe({ secretKey: 'sk_test_the_service_was_not_given', slowMs: 0 });
    // A long wait: an answer that only came when the wait ran out would be 503 result_pending.
    app = await startTestApp({ STRIPE_API_BASE: fake.url, RESULT_WAIT_MS: '60000' }, { workers: true });
    tenant = await createTenant(app);
  });
  afterAll(async () => {
    await app.close();
    await fake.close();
  });

  it('answers 400 vendor_not_configured without asking the vendor, every time, and stores nothing', async () => {
    const account = await importAccount(app, tenant);
    const world = { app, fake, tenant, close: () => Promise.resolve() };
    const reference = fake.addCard().id;
    // More than the breaker's volume threshold (5): refusals of our own must not open it.
    for (let i = 0; i < 7; i++) {
      const res = await postInstruction(world, account, card(reference), { 'Idempotency-Key': `unset-${i}` });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        code: 'vendor_not_configured',
        errors: [{ attr: 'vendor', code: 'vendor_not_configured' }],
      });
      expect(res.body.detail).toMatch(/not configured.*STRIPE_SECRET_KEY/);
    }
    expect(fake.requests).toHaveLength(0);
    expect(vendorBreakerStates().STRIPE).toBe('closed');
    expect(await storedInstructions(app, account.id)).toEqual([]);
  });

  it('is a final failure for the migration client, not a retry', () => {
    const item = { import_supplier: 'S', external_account_number: 'E', ...card('pm_x') };
    const body = {
      detail: 'Payment vendor STRIPE is not configured on this service.',
      code: 'vendor_not_configured',
      errors: [{ attr: 'vendor', code: 'vendor_not_configured', detail: 'not configured' }],
    };
    expect(classifyAnswer('payment-instructions', 400, body, null, [item])).toEqual({
      type: 'final',
      outcomes: [{ ok: false, code: 'vendor_not_configured', attr: 'vendor', detail: 'not configured' }],
    });
  });

  it.each([
    ['without the key, names the vendor as not configured', {}, /STRIPE: not configured .*not an outage/],
    ['with the key, adds no note', { STRIPE_SECRET_KEY: 'sk_test_set' }, /^$/],
  ])('the queue board, %s', async (_name, settings, note) => {
    const staff = await startStaffApp(settings);
    try {
      const { client } = await signedIn(staff, 'operator');
      const { queues } = JSON.parse((await client.get('/admin/queues/api/queues')).text);
      const payment = queues.find((q: { name: string }) => q.name === 'payment-instructions');
      expect(payment.description ?? '').toMatch(note);
      const others = queues.filter((q: { name: string }) => q.name !== 'payment-instructions');
      expect(others.every((q: { description?: string }) => !q.description)).toBe(true);
    } finally {
      await staff.close();
    }
  });
});
