// STRIPE instructions inside an account being created: the job verifies each with the vendor (the local
// fake speaking Stripe's wire format) and applies the same ownership rule as payment-instruction/create:
// a card of a Stripe customer another organisation uses is refused, and nothing is created.
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { createTenant, request, type Tenant } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import {
  card,
  importAccount,
  postInstruction,
  startInstructionsWorld,
  vendorCalls,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';
import { account, applyCatalogue, stageAccount } from './account.fixture';

describe('STRIPE instructions of an account being created', () => {
  let world: InstructionsWorld;
  let intruder: Tenant;

  beforeAll(async () => {
    resetVendorBreakers();
    world = await startInstructionsWorld(15_000, { overrides: { VENDOR_TIMEOUT_MS: '3000' } });
    await applyCatalogue(world.app);
    intruder = await createTenant(world.app);
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  const createWithCard = async (tenant: Tenant, reference: string) => {
    const number = `EXT-${uniqueSuffix()}`;
    const body = { ...account(tenant.supplier, number), payment_instructions: [card(reference)] };
    expect((await stageAccount(world.app, tenant, body)).status).toBe(201);
    const res = await request(world.app.baseUrl, 'POST', '/v1/data-import/account-import-process/process/', {
      token: tenant.token,
      body: { import_supplier_code: tenant.supplier, external_account_number: number },
    });
    const { rows } = await world.app.db.pool.query<{ id: number }>(
      `SELECT a.id FROM accounts a JOIN account_import_processes p ON p.id = a.process_id
        WHERE p.supplier_code = $1 AND p.external_account_number = $2`,
      [tenant.supplier, number],
    );
    return { res, accountIds: rows.map((r) => r.id) };
  };

  it('verifies the card with the vendor and stores the instruction with its details', async () => {
    const method = world.fake.addCard({ customer: `cus_${uniqueSuffix()}` });

    const { res, accountIds } = await createWithCard(world.tenant, method.id);

    expect(res.status).toBe(201);
    expect(vendorCalls(world.fake, method.id).length).toBeGreaterThanOrEqual(1);
    const stored = await world.app.db.prisma.paymentInstruction.findMany({ where: { accountId: accountIds[0]! } });
    expect(stored).toEqual([
      expect.objectContaining({
        vendor: 'STRIPE',
        reference: method.id,
        isActive: true,
        vendorDetails: expect.anything(),
      }),
    ]);
  });

  it("refuses a card of another organisation's Stripe customer, and creates no account", async () => {
    const customer = `cus_${uniqueSuffix()}`;
    const [owned, other] = [world.fake.addCard({ customer }), world.fake.addCard({ customer })];
    const own = await importAccount(world.app, world.tenant);
    expect((await postInstruction(world, own, card(owned.id))).status).toBe(201);

    const { res, accountIds } = await createWithCard(intruder, other.id);

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        attr: 'payment_instructions.0.reference',
        code: 'payment_method_customer_of_another_organisation',
      }),
    ]);
    expect(JSON.stringify(res.body)).not.toMatch(/cus_/);
    expect(accountIds).toEqual([]);
  });
});
