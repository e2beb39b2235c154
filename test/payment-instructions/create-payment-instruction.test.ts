import { resetVendorBreakers, vendorBreakerStates } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { createTenant, request } from '../helpers/app';
import {
  card,
  importAccount,
  INSTRUCTIONS_PATH,
  postInstruction,
  startInstructionsWorld,
  storedInstructions,
  vendorCalls,
  type InstructionsWorld,
} from './payment-instructions.fixture';

describe('POST payment-instruction/create', () => {
  let world: InstructionsWorld;

  beforeAll(async () => {
    resetVendorBreakers();
    world = await startInstructionsWorld(15_000);
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  it('verifies a Stripe card at the vendor, stores its card details and answers 201', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();

    const res = await postInstruction(world, account, card(method.id));

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ platform_account_number: account.platformAccountNumber, reference: method.id });
    const stored = await storedInstructions(world.app, account.id);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({ vendor: 'STRIPE', reference: method.id, type: 'CARD', isActive: true });
    expect(stored[0]!.vendorDetails).toEqual({
      payment_method: method.id,
      customer: method.customer,
      brand: 'visa',
      last4: '4242',
      exp_month: 12,
      exp_year: method.card!.exp_year,
      fingerprint: method.card!.fingerprint,
      funding: 'credit',
      country: 'GB',
      livemode: false,
    });
    expect(vendorCalls(world.fake, method.id)).toEqual([
      {
        method: 'GET',
        path: `/v1/payment_methods/${method.id}`,
        mode: 'healthy',
        status: 200,
        startedAt: expect.any(Number),
        answeredAt: expect.any(Number),
      },
    ]);
  });

  it("accepts the contract's example payload with a PaymentMethod id as the reference", async () => {
    const account = await importAccount(world.app, world.tenant, 'EXTERNAL-1234');
    world.fake.addCard({ id: 'pm_1QxExampleCardReference' });

    const res = await postInstruction(world, account, {
      import_supplier: world.tenant.supplier,
      external_account_number: 'EXTERNAL-1234',
      vendor: 'STRIPE',
      reference: 'pm_1QxExampleCardReference',
      type: 'CARD',
    });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      platform_account_number: account.platformAccountNumber,
      reference: 'pm_1QxExampleCardReference',
    });
  });

  it.each(['pm_card_visa', 'pm_card_chargeDeclined', 'pm_card_visa_debit', 'pm_card_mastercard_prepaid'])(
    "accepts Stripe's test-mode PaymentMethod id %s and asks Stripe for exactly that id",
    async (id) => {
      const account = await importAccount(world.app, world.tenant);
      world.fake.addCard({ id });

      const res = await postInstruction(world, account, card(id));

      expect(res.status).toBe(201);
      expect(res.body).toEqual({ platform_account_number: account.platformAccountNumber, reference: id });
      expect(vendorCalls(world.fake, id).map((r) => [r.path, r.status])).toContainEqual([
        `/v1/payment_methods/${id}`,
        200,
      ]);
    },
  );

  it.each([
    ["the contract's placeholder", 'THIS-IS-A-FAKE-REFERENCE', 'reference'],
    ['a card number', '4242424242424242', 'reference'],
    ['a card number behind the prefix', 'pm_4242 4242 4242 4242', 'reference'],
    ['a customer id', 'cus_9s6XKzkNRiz8i3', 'reference'],
    ['a legacy card id', 'card_1QxExample', 'reference'],
    ['an over-long id', `pm_${'a'.repeat(253)}`, 'reference'],
    ['a path that climbs out of the PaymentMethod', 'pm_card_visa/../../customers', 'reference'],
    ['a dotted suffix', 'pm_card_visa.json', 'reference'],
    ['a query string', 'pm_card_visa?expand[]=customer', 'reference'],
    ['a fragment', 'pm_card_visa#top', 'reference'],
    ['a percent-encoded slash', 'pm_card_visa%2F..%2Fcustomers', 'reference'],
    ['a trailing newline', 'pm_card_visa\n', 'reference'],
    ['a space inside', 'pm_card visa', 'reference'],
    ['a hyphen', 'pm_card-visa', 'reference'],
    ['a card number in the deprecated alias', '4000056655665556', 'instruction_reference'],
  ])(
    'refuses %s with 400 invalid_vendor_reference, without asking Stripe or echoing it',
    async (_what, reference, attr) => {
      const account = await importAccount(world.app, world.tenant);
      const callsBefore = world.fake.requests.length;

      const res = await postInstruction(world, account, { ...card('unused'), reference: undefined, [attr]: reference });

      expect(res.status).toBe(400);
      expect(res.body.errors).toEqual([{ attr, code: 'invalid_vendor_reference', detail: expect.any(String) }]);
      expect(JSON.stringify(res.body)).not.toContain(reference);
      expect(world.fake.requests.length).toBe(callsBefore);
      expect(await storedInstructions(world.app, account.id)).toEqual([]);
    },
  );

  it('answers 400 when Stripe has no such PaymentMethod, stores nothing, asks once and keeps the breaker closed', async () => {
    const account = await importAccount(world.app, world.tenant);

    const res = await postInstruction(world, account, card('pm_unknownToStripe'));

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String),
      code: 'payment_instruction_not_found_at_vendor',
      errors: [{ attr: 'reference', code: 'payment_instruction_not_found_at_vendor', detail: expect.any(String) }],
    });
    expect(await storedInstructions(world.app, account.id)).toEqual([]);
    expect(vendorCalls(world.fake, 'pm_unknownToStripe').map((r) => r.status)).toEqual([404]);
    expect(vendorBreakerStates()).toEqual({ STRIPE: 'closed' });
  });

  it.each([
    [
      'is not a card',
      { type: 'sepa_debit', card: undefined, sepa_debit: { last4: '3000' } },
      'payment_method_not_a_card',
    ],
    ['is detached from any customer', { customer: null }, 'payment_method_not_attached'],
    [
      'has expired',
      {
        card: {
          brand: 'visa',
          last4: '4242',
          exp_month: 1,
          exp_year: 2020,
          fingerprint: 'f',
          funding: 'debit',
          country: 'GB',
        },
      },
      'payment_method_card_expired',
    ],
  ])('answers 400 when the PaymentMethod %s', async (_what, overrides, code) => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard(overrides);

    const res = await postInstruction(world, account, card(method.id));

    expect(res.status).toBe(400);
    expect(res.body.code).toBe(code);
    expect(res.body.errors).toEqual([{ attr: 'reference', code, detail: expect.any(String) }]);
    expect(await storedInstructions(world.app, account.id)).toEqual([]);
  });

  it('answers 201 again for the same vendor and reference, storing one row and asking the vendor once', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();

    const first = await postInstruction(world, account, card(method.id));
    const second = await postInstruction(world, account, card(method.id));

    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body).toEqual(first.body);
    expect(await storedInstructions(world.app, account.id)).toHaveLength(1);
    expect(vendorCalls(world.fake, method.id)).toHaveLength(1);
  });

  it('refuses a second, different instruction while the account has an active one, without asking the vendor', async () => {
    const account = await importAccount(world.app, world.tenant);
    const active = world.fake.addCard();
    const other = world.fake.addCard();
    expect((await postInstruction(world, account, card(active.id))).status).toBe(201);

    const res = await postInstruction(world, account, card(other.id));

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      detail: expect.any(String),
      code: 'account_already_has_active_instruction',
      errors: [
        { attr: 'non_field_errors', code: 'account_already_has_active_instruction', detail: expect.any(String) },
      ],
    });
    expect((await storedInstructions(world.app, account.id)).map((i) => i.reference)).toEqual([active.id]);
    expect(vendorCalls(world.fake, other.id)).toEqual([]);
  });

  it('stores one instruction when two different ones race on the same account', async () => {
    const account = await importAccount(world.app, world.tenant);
    const a = world.fake.addCard();
    const b = world.fake.addCard();

    const answers = await Promise.all([
      postInstruction(world, account, card(a.id)),
      postInstruction(world, account, card(b.id)),
    ]);

    expect(answers.map((r) => r.status).sort()).toEqual([201, 400]);
    expect(answers.find((r) => r.status === 400)!.body.code).toBe('account_already_has_active_instruction');
    const stored = await storedInstructions(world.app, account.id);
    expect(stored).toHaveLength(1);
    expect(answers.find((r) => r.status === 201)!.body.reference).toBe(stored[0]!.reference);
  });

  it('replays the stored answer for a repeated Idempotency-Key without a second vendor call', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    const headers = { 'idempotency-key': `key-${method.id}` };

    const first = await postInstruction(world, account, card(method.id), headers);
    const replay = await postInstruction(world, account, card(method.id), headers);
    const reused = await postInstruction(world, account, card('pm_other'), headers);

    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(reused.status).toBe(422);
    expect(reused.body.code).toBe('idempotency_key_reused');
    expect(vendorCalls(world.fake, method.id)).toHaveLength(1);
    expect(await storedInstructions(world.app, account.id)).toHaveLength(1);
    const results = await world.app.db.prisma.requestResult.findMany({
      where: { idempotencyKey: headers['idempotency-key'] },
    });
    expect(results.map((r) => r.httpStatus)).toEqual([201]);
  });

  it('accepts the deprecated instruction_reference and stores valid_from and use_for_scheduled_payments', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();

    const res = await postInstruction(world, account, {
      vendor: 'STRIPE',
      type: 'CARD',
      instruction_reference: method.id,
      valid_from: '2026-03-01',
      use_for_scheduled_payments: true,
    });

    expect(res.status).toBe(201);
    expect(res.body.reference).toBe(method.id);
    const [stored] = await storedInstructions(world.app, account.id);
    expect(stored).toMatchObject({
      reference: method.id,
      useForScheduledPayments: true,
      validFrom: new Date('2026-03-01T00:00:00Z'),
    });
  });

  describe('refused before anything is queued', () => {
    it.each([
      ['a vendor without an adapter', { vendor: 'WESTPAC', type: 'CARD', reference: 'x' }, 'vendor', 'invalid_choice'],
      [
        'a type the vendor does not support',
        { vendor: 'STRIPE', type: 'DIRECT_DEBIT', reference: 'x' },
        'type',
        'invalid_choice',
      ],
      ['a type outside the contract', { vendor: 'STRIPE', type: 'CHEQUE', reference: 'x' }, 'type', 'invalid_choice'],
      ['a reference over 512 characters', card('p'.repeat(513)), 'reference', 'max_length'],
      ['no reference at all', { vendor: 'STRIPE', type: 'CARD' }, 'reference', 'required'],
      [
        'both reference and instruction_reference',
        { ...card('a'), instruction_reference: 'b' },
        'instruction_reference',
        'mutually_exclusive_field_required',
      ],
      [
        'a ledger code (this service has no ledgers)',
        { ...card('a'), ledger_code: 'MAIN' },
        'ledger_code',
        'ledger_code_does_not_exist',
      ],
      ['a malformed valid_from', { ...card('a'), valid_from: '2026-02-30' }, 'valid_from', 'invalid'],
      ['no vendor', { type: 'CARD', reference: 'x' }, 'vendor', 'required'],
    ])('answers 400 for %s', async (_what, fields, attr, code) => {
      // This tenant's rows only: the workers' purge may delete other, expired rows meanwhile.
      const organisation = { name: `org-${world.tenant.supplier.replace('SUPPLIER_', '')}` };
      expect(await world.app.db.prisma.organisation.count({ where: organisation })).toBe(1);
      const stored = () => world.app.db.prisma.requestResult.count({ where: { organisation } });
      const before = await stored();
      const account = await importAccount(world.app, world.tenant);
      const calls = world.fake.requests.length;

      const res = await postInstruction(world, account, fields);

      expect(res.status).toBe(400);
      expect(res.body.errors).toContainEqual({ attr, code, detail: expect.any(String) });

      expect(await stored()).toBe(before);
      expect(world.fake.requests.length).toBe(calls);
    });

    it('answers 404 account_not_found for a staged account and for an unknown one', async () => {
      const staged = `STAGED-${Date.now()}`;
      const tenant = await createTenant(world.app, {
        accounts: [{ external_account_number: staged, state: 'staged' }],
      });
      for (const number of [staged, 'NO-SUCH-ACCOUNT']) {
        const res = await request(world.app.baseUrl, 'POST', INSTRUCTIONS_PATH, {
          token: tenant.token,
          body: { import_supplier: tenant.supplier, external_account_number: number, ...card('pm_x') },
        });
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('account_not_found');
      }
    });

    it('answers 400 import_supplier_migration_not_ongoing for a paused supplier', async () => {
      const tenant = await createTenant(world.app, {
        status: 'Paused',
        accounts: [{ external_account_number: 'EXT-1', state: 'imported' }],
      });
      const calls = world.fake.requests.length;

      const res = await request(world.app.baseUrl, 'POST', INSTRUCTIONS_PATH, {
        token: tenant.token,
        body: { import_supplier: tenant.supplier, external_account_number: 'EXT-1', ...card('pm_x') },
      });

      expect(res.status).toBe(400);
      expect(res.body.code).toBe('import_supplier_migration_not_ongoing');
      expect(world.fake.requests.length).toBe(calls);
    });
  });
});
