// `dry_run: true` on notes, historical statements and payment instructions (transactions have their own
// tests): the answer is the one the real call gives, and no row of any table changes.
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { request } from '../helpers/app';
import {
  card,
  importAccount,
  INSTRUCTIONS_PATH,
  postInstruction,
  startInstructionsWorld,
  vendorCalls,
  type ImportedAccount,
  type InstructionsWorld,
} from '../payment-instructions/payment-instructions.fixture';

const NOTES_PATH = '/v1/data-import/notes/create/';
const STATEMENTS_PATH = '/v1/data-import/historical-statements/create/';

describe('dry_run on every write', () => {
  let world: InstructionsWorld;

  beforeAll(async () => {
    resetVendorBreakers();
    world = await startInstructionsWorld(15_000);
  });
  afterAll(async () => {
    await world.close();
    resetVendorBreakers();
  });

  /** Every row a write of these three kinds could add, for one account and the Stripe bindings. */
  async function rowCounts(account: ImportedAccount) {
    const { prisma } = world.app.db;
    const where = { accountId: account.id };
    return {
      notes: await prisma.note.count({ where }),
      statements: await prisma.historicalStatement.count({ where }),
      instructions: await prisma.paymentInstruction.count({ where }),
      bindings: await prisma.stripeCustomerBinding.count(),
    };
  }

  const post = (path: string, account: ImportedAccount, body: Record<string, unknown>) =>
    request(world.app.baseUrl, 'POST', path, {
      token: world.tenant.token,
      body: { import_supplier: world.tenant.supplier, external_account_number: account.number, ...body },
    });

  it('notes: a dry run answers what the real call answers and stores no note', async () => {
    const account = await importAccount(world.app, world.tenant);
    await post(NOTES_PATH, account, { notes: [{ body: 'kept', created_at: '2021-01-01T00:00:00Z' }] });
    const notes = [
      { body: 'kept', created_at: '2021-01-01T00:00:00Z' },
      { body: 'new', created_at: '2021-02-01T00:00:00Z', external_id: 'n-1' },
      { body: 'new', created_at: '2021-02-01T00:00:00Z' },
    ];
    const before = await rowCounts(account);

    const dry = await post(NOTES_PATH, account, { notes, dry_run: true });

    expect(dry.status).toBe(201);
    expect(dry.body.map((n: { status: string }) => n.status)).toEqual([
      'NOTE_ALREADY_EXISTS',
      'NOTE_CREATION_SUCCESS',
      'NOTE_ALREADY_EXISTS',
    ]);
    expect(await rowCounts(account)).toEqual(before);
    const real = await post(NOTES_PATH, account, { notes });
    expect(real.body).toEqual(dry.body);
    expect((await rowCounts(account)).notes).toBe(before.notes + 1);
  });

  it('statements: a dry run answers the validated request, refuses a known statement_id, stores nothing', async () => {
    const account = await importAccount(world.app, world.tenant);
    const statement = (id: string) => ({
      statement_id: id,
      bill_period_from_date: '2021-01-01',
      bill_period_to_date: '2021-01-31',
    });
    const before = await rowCounts(account);

    const dry = await post(STATEMENTS_PATH, account, { statements: [statement('s-1')], dry_run: true });

    expect(dry.status).toBe(201);
    expect(dry.body).not.toHaveProperty('dry_run');
    expect(await rowCounts(account)).toEqual(before);
    const real = await post(STATEMENTS_PATH, account, { statements: [statement('s-1')] });
    expect(real.status).toBe(201);
    expect(real.body).toEqual(dry.body);

    const refused = await post(STATEMENTS_PATH, account, {
      statements: [statement('s-2'), statement('s-1')],
      dry_run: true,
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ code: 'historical_statement_already_exists' })]);
    expect((await rowCounts(account)).statements).toBe(before.statements + 1);
  });

  it('payment instructions: a dry run asks the vendor, answers 201 and stores neither instruction nor binding', async () => {
    const account = await importAccount(world.app, world.tenant);
    const method = world.fake.addCard();
    const before = await rowCounts(account);

    const dry = await postInstruction(world, account, { ...card(method.id), dry_run: true });

    expect(dry.status).toBe(201);
    expect(dry.body).toEqual({ platform_account_number: account.platformAccountNumber, reference: method.id });
    expect(vendorCalls(world.fake, method.id)).toHaveLength(1);
    expect(await rowCounts(account)).toEqual(before);
    const real = await postInstruction(world, account, card(method.id));
    expect(real.body).toEqual(dry.body);
    expect((await rowCounts(account)).instructions).toBe(before.instructions + 1);
  });

  it('payment instructions: a dry run gets the refusal the real call would get', async () => {
    const account = await importAccount(world.app, world.tenant);
    await postInstruction(world, account, card(world.fake.addCard().id));
    const before = await rowCounts(account);

    const dry = await postInstruction(world, account, { ...card(world.fake.addCard().id), dry_run: true });

    expect(dry.status).toBe(400);
    expect(dry.body.code).toBe('account_already_has_active_instruction');
    expect(await rowCounts(account)).toEqual(before);
  });

  it.each([NOTES_PATH, STATEMENTS_PATH, INSTRUCTIONS_PATH])('%s: dry_run must be a boolean', async (path) => {
    const account = await importAccount(world.app, world.tenant);
    const res = await post(path, account, { dry_run: 'yes', notes: [], statements: [], ...card('pm_x') });
    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual(expect.objectContaining({ attr: 'dry_run', code: 'invalid' }));
  });
});
