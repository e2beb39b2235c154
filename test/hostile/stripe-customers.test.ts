// One Stripe account serves every tenant, so a PaymentMethod id one tenant knows may be another
// tenant's customer's card. A customer is bound to the first organisation whose instruction uses it;
// another organisation is refused that customer's cards, with one code and one shape whether the
// binding's organisation exists or not. The strict setting refuses every STRIPE instruction on an
// account without a recorded customer, and a recorded customer loaded from a streamed file is enforced.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyAccountFile } from '../../shared/admin/account-file.use-case';
import { bindStripeCustomer } from '../../shared/payment-instructions/payment-instruction.repository';
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { loadConfig } from '../../shared/platform/config';
import { inTransaction } from '../../shared/platform/db';
import { createTenant, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import {
  card,
  importAccount,
  postInstruction,
  startInstructionsWorld,
  storedInstructions,
  vendorCalls,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';

const BOUND_ELSEWHERE = {
  detail: expect.any(String),
  code: 'payment_method_customer_of_another_organisation',
  errors: [{ attr: 'reference', code: 'payment_method_customer_of_another_organisation', detail: expect.any(String) }],
};

const newCustomer = () => `cus_${uniqueSuffix()}${uniqueSuffix()}`;
const orgId = (tenant: Tenant) => tenant.report.organisations[0]!.id;

describe('one tenant reaching for another tenant’s Stripe customers', () => {
  let world: InstructionsWorld;
  let intruder: Tenant;
  const as = (tenant: Tenant) => ({ ...world, tenant });

  beforeAll(async () => {
    resetVendorBreakers();
    world = await startInstructionsWorld(15_000, { overrides: { VENDOR_TIMEOUT_MS: '3000' } });
    intruder = await createTenant(world.app);
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  it("refuses another organisation's customer's cards on accounts without a recorded customer", async () => {
    const customer = newCustomer();
    const [first, second] = [world.fake.addCard({ customer }), world.fake.addCard({ customer })];
    const own = await importAccount(world.app, world.tenant);
    expect((await postInstruction(world, own, card(first.id))).status).toBe(201);

    const targets = await Promise.all([1, 2].map(() => importAccount(world.app, intruder)));
    for (const [i, method] of [first, second].entries()) {
      const res = await postInstruction(as(intruder), targets[i]!, card(method.id));
      expect([res.status, res.body]).toEqual([400, BOUND_ELSEWHERE]);
      expect(JSON.stringify(res.body)).not.toMatch(/cus_|org-/);
      expect(await storedInstructions(world.app, targets[i]!.id)).toEqual([]);
    }

    // The owner keeps using its customer's cards on its other accounts.
    const another = await importAccount(world.app, world.tenant);
    expect((await postInstruction(world, another, card(second.id))).status).toBe(201);
  });

  it('answers the same whether the organisation holding the customer exists or not', async () => {
    const held = world.fake.addCard({ customer: newCustomer() });
    expect((await postInstruction(world, await importAccount(world.app, world.tenant), card(held.id))).status).toBe(
      201,
    );
    const ghost = world.fake.addCard({ customer: newCustomer() });
    await world.app.db.prisma.stripeCustomerBinding.create({
      data: { customerId: ghost.customer!, organisationId: 2_147_483_647 },
    });
    expect(await world.app.db.prisma.organisation.count({ where: { id: 2_147_483_647 } })).toBe(0);

    const [toHeld, toGhost] = await Promise.all(
      [held, ghost].map(async (m) =>
        postInstruction(as(intruder), await importAccount(world.app, intruder), card(m.id)),
      ),
    );

    expect(toHeld!.status).toBe(400);
    expect(toGhost!.status).toBe(400);
    expect(toGhost!.body).toEqual(toHeld!.body);
    expect(toHeld!.body).toEqual(BOUND_ELSEWHERE);
  });

  it('lets exactly one of two organisations racing for a new customer have it', async () => {
    const customer = newCustomer();
    const methods = [world.fake.addCard({ customer }), world.fake.addCard({ customer })];
    const accounts = await Promise.all([world.tenant, intruder].map((t) => importAccount(world.app, t)));

    const answers = await Promise.all(
      [world.tenant, intruder].map((t, i) => postInstruction(as(t), accounts[i]!, card(methods[i]!.id))),
    );

    expect(answers.map((a) => a.status).sort()).toEqual([201, 400]);
    expect(answers.find((a) => a.status === 400)!.body).toEqual(BOUND_ELSEWHERE);
    const bindings = await world.app.db.prisma.stripeCustomerBinding.findMany({ where: { customerId: customer } });
    const winner = answers.findIndex((a) => a.status === 201);
    expect(bindings.map((b) => b.organisationId)).toEqual([orgId([world.tenant, intruder][winner]!)]);
  });

  it('binds a customer once when two transactions race: the second waits for the first and sees its binding', async () => {
    const customer = newCustomer();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let firstBound!: () => void;
    const bound = new Promise<void>((resolve) => (firstBound = resolve));
    const first = inTransaction(world.app.db, async (tx) => {
      const winner = await bindStripeCustomer(tx, customer, orgId(world.tenant));
      firstBound();
      await gate;
      return winner;
    });
    await bound;
    const second = inTransaction(world.app.db, (tx) => bindStripeCustomer(tx, customer, orgId(intruder)));
    // The second INSERT is blocked on the first's uncommitted row before the first commits.
    await untilLockWait(world, customer);
    release();

    expect(await first).toBe(orgId(world.tenant));
    expect(await second).toBe(orgId(world.tenant));
  });
});

describe('STRIPE_REQUIRE_RECORDED_CUSTOMER=true', () => {
  let world: InstructionsWorld;
  let dir: string;

  beforeAll(async () => {
    resetVendorBreakers();
    world = await startInstructionsWorld(15_000, {
      overrides: { VENDOR_TIMEOUT_MS: '3000', STRIPE_REQUIRE_RECORDED_CUSTOMER: 'true' },
    });
    dir = await mkdtemp(path.join(tmpdir(), 'stripe-customers-'));
  });
  afterAll(async () => {
    await world.close();
    await rm(dir, { recursive: true, force: true });
    resetVendorBreakers();
  });

  it('is off unless set to exactly true or false', () => {
    expect(loadConfig({}).STRIPE_REQUIRE_RECORDED_CUSTOMER).toBe(false);
    expect(loadConfig({ STRIPE_REQUIRE_RECORDED_CUSTOMER: 'true' }).STRIPE_REQUIRE_RECORDED_CUSTOMER).toBe(true);
    expect(() => loadConfig({ STRIPE_REQUIRE_RECORDED_CUSTOMER: 'yes' })).toThrow(/STRIPE_REQUIRE_RECORDED_CUSTOMER/);
  });

  it('refuses a STRIPE instruction on an account without a recorded customer, without asking Stripe', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();

    const res = await postInstruction(world, account, card(method.id));

    expect([res.status, res.body]).toEqual([
      400,
      {
        detail: expect.any(String),
        code: 'stripe_customer_not_recorded',
        errors: [{ attr: 'non_field_errors', code: 'stripe_customer_not_recorded', detail: expect.any(String) }],
      },
    ]);
    expect(vendorCalls(world.fake, method.id)).toEqual([]);
    expect(await storedInstructions(world.app, account.id)).toEqual([]);
  });

  it.each(['ndjson', 'csv'] as const)(
    'enforces the customer recorded by a %s account file: its card is taken, another customer’s is not',
    async (format) => {
      const customer = newCustomer();
      const [external, foreignExternal] = [`EXT-${uniqueSuffix()}`, `EXT-${uniqueSuffix()}`];
      const records = [external, foreignExternal].map((e) => ({
        import_supplier: world.tenant.supplier,
        external_account_number: e,
        state: 'imported',
        stripe_customer: customer,
      }));
      const lines =
        format === 'ndjson'
          ? records.map((r) => JSON.stringify(r))
          : [Object.keys(records[0]!).join(','), ...records.map((r) => Object.values(r).join(','))];
      const file = path.join(dir, `accounts-${uniqueSuffix()}.${format}`);
      await writeFile(file, `${lines.join('\n')}\n`);
      await applyAccountFile(world.app.db, file, format);

      const own = await postInstruction(world, { number: external }, card(world.fake.addCard({ customer }).id));
      const foreign = await postInstruction(world, { number: foreignExternal }, card(world.fake.addCard().id));

      expect(own.status).toBe(201);
      expect([foreign.status, foreign.body.code]).toEqual([400, 'payment_method_customer_mismatch']);
    },
  );
});

/** Polls (with a deadline) until a session waits on a row lock while inserting this customer's binding. */
async function untilLockWait(world: InstructionsWorld, customer: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await world.app.db.pool.query(
      `SELECT 1 FROM pg_stat_activity
        WHERE wait_event_type = 'Lock' AND query LIKE '%stripe_customer_bindings%' AND datname = current_database()`,
    );
    if (rows.rowCount) return;
    if (Date.now() > deadline) throw new Error(`no session waited for the binding of ${customer}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
