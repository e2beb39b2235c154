// Shared set-up of the payment-instruction tests: the app with its workers talking to a fake Stripe,
// fresh imported accounts, and what was stored or sent to the vendor.
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';

export const INSTRUCTIONS_PATH = '/v1/data-import/payment-instruction/create/';
// Long enough that a healthy call on a busy machine does not time out (an extra call would break the
// exact call counts); the slow mode outlasts it threefold.
export const VENDOR_TIMEOUT_MS = 1_000;

export interface InstructionsWorld {
  app: TestApp;
  fake: FakeStripe;
  tenant: Tenant;
  close(): Promise<void>;
}

export async function startInstructionsWorld(
  resultWaitMs: number,
  opts: { overrides?: Record<string, string>; slowMs?: number } = {},
): Promise<InstructionsWorld> {
  const fake = await startFakeStripe({
    secretKey: `sk_test_${uniqueSuffix()}`,
    slowMs: opts.slowMs ?? VENDOR_TIMEOUT_MS * 3,
  });
  const app = await startTestApp(
    {
      STRIPE_API_BASE: fake.url,
      STRIPE_SECRET_KEY: fake.secretKey,
      VENDOR_TIMEOUT_MS: String(VENDOR_TIMEOUT_MS),
      RESULT_WAIT_MS: String(resultWaitMs),
      ...opts.overrides,
    },
    { workers: true },
  );
  const tenant = await createTenant(app);
  return {
    app,
    fake,
    tenant,
    async close() {
      await app.close();
      await fake.close();
    },
  };
}

export interface ImportedAccount {
  number: string;
  id: number;
  platformAccountNumber: string;
}

/** A new imported account under the tenant's supplier, so each test starts with no instruction. */
export async function importAccount(
  app: TestApp,
  tenant: Tenant,
  number = `EXT-${uniqueSuffix()}`,
): Promise<ImportedAccount> {
  const report = await applyFile(app.db, {
    accounts: [{ import_supplier: tenant.supplier, external_account_number: number, state: 'imported' }],
  });
  const platformAccountNumber = report.accounts[0]!.platform_account_number!;
  const account = await app.db.prisma.account.findUniqueOrThrow({ where: { platformAccountNumber } });
  return { number, id: account.id, platformAccountNumber };
}

export function postInstruction(
  world: InstructionsWorld,
  account: { number: string },
  fields: Record<string, unknown>,
  headers: Record<string, string> = {},
) {
  return request(world.app.baseUrl, 'POST', INSTRUCTIONS_PATH, {
    token: world.tenant.token,
    headers,
    body: { import_supplier: world.tenant.supplier, external_account_number: account.number, ...fields },
  });
}

export const card = (reference: string) => ({ vendor: 'STRIPE', type: 'CARD', reference });

export function storedInstructions(app: TestApp, accountId: number) {
  return app.db.prisma.paymentInstruction.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
}

/** Requests that reached the fake vendor for this PaymentMethod id. */
export function vendorCalls(fake: FakeStripe, reference: string) {
  return fake.requests.filter((r) => r.path === `/v1/payment_methods/${encodeURIComponent(reference)}`);
}
