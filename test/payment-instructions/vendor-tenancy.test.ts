// One Stripe account serves every tenant: a PaymentMethod must belong to the customer recorded for the
// account (when one is), refusals never tell the caller more about a card than the reference it sent,
// and one organisation's burst of vendor calls is held to its share so it cannot crowd out the others.
import { applyFile } from '../../shared/admin/apply.use-case';
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { createTenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { REFUSAL_WITH_CARD_DETAILS } from '../helpers/fake-stripe';
import {
  card,
  importAccount,
  postInstruction,
  startInstructionsWorld,
  storedInstructions,
  vendorCalls,
  type InstructionsWorld,
} from './payment-instructions.fixture';

describe('payment instructions and the shared vendor account', () => {
  let world: InstructionsWorld;

  beforeAll(async () => {
    resetVendorBreakers();
    // Slow answers well inside the vendor time-out, so calls in flight overlap long enough to observe.
    world = await startInstructionsWorld(15_000, {
      overrides: { VENDOR_TIMEOUT_MS: '3000', VENDOR_CALLS_PER_ORGANISATION: '1' },
      slowMs: 400,
    });
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  async function accountOfCustomer(stripeCustomer: string) {
    const number = `EXT-${uniqueSuffix()}`;
    const report = await applyFile(world.app.db, {
      accounts: [
        {
          import_supplier: world.tenant.supplier,
          external_account_number: number,
          state: 'imported',
          stripe_customer: stripeCustomer,
        },
      ],
    });
    const account = await world.app.db.prisma.account.findUniqueOrThrow({
      where: { platformAccountNumber: report.accounts[0]!.platform_account_number! },
    });
    return { number, id: account.id, platformAccountNumber: account.platformAccountNumber };
  }

  it("refuses a PaymentMethod of another customer than the account's recorded one, naming neither", async () => {
    // Customers unique to the run: a customer stays bound to the first organisation using it.
    const owner = `cus_Owner${uniqueSuffix()}`;
    const account = await accountOfCustomer(owner);
    const foreign = world.fake.addCard({ customer: `cus_Someone${uniqueSuffix()}` });

    const res = await postInstruction(world, account, card(foreign.id));

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { attr: 'reference', code: 'payment_method_customer_mismatch', detail: expect.any(String) },
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/cus_/);
    expect(await storedInstructions(world.app, account.id)).toEqual([]);

    const own = world.fake.addCard({ customer: owner });
    expect((await postInstruction(world, account, card(own.id))).status).toBe(201);
  });

  it('accepts a PaymentMethod of any customer when the account has none recorded', async () => {
    const account = await importAccount(world.app, world.tenant);
    expect(
      (await postInstruction(world, account, card(world.fake.addCard({ customer: `cus_Anyone${uniqueSuffix()}` }).id)))
        .status,
    ).toBe(201);
  });

  it("does not pass on Stripe's description of a card, nor an expiry date the caller did not send", async () => {
    const refusedAccount = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    world.fake.queueModes('refused');
    const refused = await postInstruction(world, refusedAccount, card(method.id));
    expect([refused.status, refused.body.code]).toEqual([400, 'payment_instruction_rejected_by_vendor']);
    expect(JSON.stringify(refused.body)).not.toMatch(/4242|2031|cus_|visa/);
    expect(vendorCalls(world.fake, method.id).map((r) => r.status)).toEqual([400]);

    const expiredAccount = await importAccount(world.app, world.tenant);
    const expired = world.fake.addCard({
      card: {
        brand: 'visa',
        last4: '4242',
        exp_month: 3,
        exp_year: 2021,
        fingerprint: 'f',
        funding: 'debit',
        country: 'GB',
      },
    });
    const res = await postInstruction(world, expiredAccount, card(expired.id));
    expect([res.status, res.body.code]).toEqual([400, 'payment_method_card_expired']);
    expect(JSON.stringify(res.body)).not.toMatch(/2021|4242|visa/);
    expect(REFUSAL_WITH_CARD_DETAILS).toContain('4242');
  });

  it("holds one organisation's vendor calls to its share while another organisation's call goes ahead", async () => {
    const other = await createTenant(world.app);
    const burst = await Promise.all([1, 2, 3].map(() => importAccount(world.app, world.tenant)));
    const otherAccount = await importAccount(world.app, other);
    const burstMethods = burst.map(() => world.fake.addCard());
    const otherMethod = world.fake.addCard();
    world.fake.setMode('slow');
    try {
      const answers = await Promise.all([
        ...burst.map((account, i) => postInstruction(world, account, card(burstMethods[i]!.id))),
        postInstruction({ ...world, tenant: other }, otherAccount, card(otherMethod.id)),
      ]);
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201]);
    } finally {
      world.fake.setMode('healthy');
    }

    const intervals = (ids: string[]) =>
      ids.flatMap((id) => vendorCalls(world.fake, id)).map((r) => [r.startedAt, r.answeredAt] as const);
    const overlap = ([s1, e1]: readonly [number, number], [s2, e2]: readonly [number, number]) => s1 < e2 && s2 < e1;
    const burstCalls = intervals(burstMethods.map((m) => m.id));
    expect(burstCalls).toHaveLength(3);
    // The share is one call at a time: no two of the burst's calls were at Stripe together…
    for (const [i, a] of burstCalls.entries())
      for (const b of burstCalls.slice(i + 1)) expect(overlap(a, b)).toBe(false);
    // …while the other organisation's call did not wait for the burst to finish.
    const [otherCall] = intervals([otherMethod.id]);
    const burstEnd = Math.max(...burstCalls.map(([, end]) => end));
    expect(otherCall![0]).toBeLessThan(burstEnd);
  }, 30_000);
});
