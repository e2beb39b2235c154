// The app (API + workers in this process, as the component tests run it), a fake Stripe, one tenant,
// and what the fuzz properties read back: the rows an account holds in every table a write can touch.
import fc from 'fast-check';
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, request, startTestApp, type Json, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';

/** Fixed in `npm test`; FUZZ_SEED / FUZZ_RUNS explore further (a failure prints the seed to replay). */
export function fuzzOptions(defaultRuns: number): fc.Parameters<unknown> {
  return {
    seed: process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : 20261122,
    numRuns: process.env.FUZZ_RUNS ? Number(process.env.FUZZ_RUNS) : defaultRuns,
    // Every run is a real HTTP round trip: shrinking a failure is worth it, but not for ever.
    interruptAfterTimeLimit: 120_000,
    markInterruptAsFailure: true,
  };
}

/** Each fuzz test's own limit (jest.setTimeout in every fuzz file): past fast-check's, so its report wins. */
export const FUZZ_TEST_TIMEOUT_MS = 180_000;

export interface FuzzWorld {
  app: TestApp;
  tenant: Tenant;
  fake: FakeStripe;
  /** A new imported account under the tenant's supplier, open statement period from 2019-10-01. */
  account(): Promise<{ external: string; id: number }>;
  post(path: string, body: unknown, opts?: { query?: string; headers?: Record<string, string> }): Promise<Json>;
  postRaw(path: string, text: string, opts?: { query?: string; headers?: Record<string, string> }): Promise<Json>;
  close(): Promise<void>;
}

export async function startFuzzWorld(overrides: Record<string, string> = {}): Promise<FuzzWorld> {
  const fake = await startFakeStripe({ secretKey: `sk_test_${uniqueSuffix()}`, slowMs: 1_000 });
  const app = await startTestApp(
    {
      STRIPE_API_BASE: fake.url,
      STRIPE_SECRET_KEY: fake.secretKey,
      VENDOR_TIMEOUT_MS: '2000',
      RESULT_WAIT_MS: '20000',
      ...overrides,
    },
    { workers: true },
  );
  const tenant = await createTenant(app);
  const path = (p: string, query?: string) => `${p}${query ? `?${query}` : ''}`;
  return {
    app,
    tenant,
    fake,
    async account() {
      const external = `FZ-${uniqueSuffix()}`;
      const report = await applyFile(app.db, {
        accounts: [
          {
            import_supplier: tenant.supplier,
            external_account_number: external,
            state: 'imported',
            open_statement_from: '2019-10-01',
          },
        ],
      });
      const number = report.accounts[0]!.platform_account_number!;
      const { id } = await app.db.prisma.account.findUniqueOrThrow({
        where: { platformAccountNumber: number },
        select: { id: true },
      });
      return { external, id };
    },
    post: (p, body, opts = {}) =>
      request(app.baseUrl, 'POST', path(p, opts.query), { token: tenant.token, body, headers: opts.headers }),
    postRaw: (p, text, opts = {}) =>
      request(app.baseUrl, 'POST', path(p, opts.query), {
        token: tenant.token,
        rawBody: text,
        headers: { 'content-type': 'application/json', ...opts.headers },
      }),
    async close() {
      await app.close();
      await fake.close();
    },
  };
}

export interface RowCounts {
  notes: number;
  transactions: number;
  statements: number;
  instructions: number;
  periods: number;
}

/** Rows of every table a data-import write can touch, for one account. */
export async function rowCounts(app: TestApp, accountId: number): Promise<RowCounts> {
  const where = { where: { accountId } };
  const [notes, transactions, statements, instructions, periods] = await Promise.all([
    app.db.prisma.note.count(where),
    app.db.prisma.transaction.count(where),
    app.db.prisma.historicalStatement.count(where),
    app.db.prisma.paymentInstruction.count(where),
    app.db.prisma.statementPeriod.count(where),
  ]);
  return { notes, transactions, statements, instructions, periods };
}
