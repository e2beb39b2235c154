// Accounts, payloads and database reads shared by the transactions tests.
import { applyFile } from '../../shared/admin/apply.use-case';
import { request, type Json, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';

/** Every test account's open statement period starts here (the contract example's date). */
export const OPEN_FROM = '2019-10-01';

export interface TestAccount {
  external: string;
  accountId: number;
  platformAccountNumber: string;
}

/** A fresh imported account under the tenant's supplier, open statement period from `openFrom`. */
export async function importedAccount(app: TestApp, tenant: Tenant, openFrom = OPEN_FROM): Promise<TestAccount> {
  const external = `EXT-${uniqueSuffix()}`;
  const report = await applyFile(app.db, {
    accounts: [
      {
        import_supplier: tenant.supplier,
        external_account_number: external,
        state: 'imported',
        open_statement_from: openFrom,
      },
    ],
  });
  const platformAccountNumber = report.accounts[0]!.platform_account_number!;
  const { id } = await app.db.prisma.account.findUniqueOrThrow({
    where: { platformAccountNumber },
    select: { id: true },
  });
  return { external, accountId: id, platformAccountNumber };
}

export function postTransactions(
  app: TestApp,
  token: string,
  body: unknown,
  opts: { query?: string; idempotencyKey?: string; headers?: Record<string, string> } = {},
): Promise<Json> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.idempotencyKey !== undefined) headers['idempotency-key'] = opts.idempotencyKey;
  const path = `/v1/data-import/transactions/create/${opts.query ? `?${opts.query}` : ''}`;
  return request(app.baseUrl, 'POST', path, { token, body, headers });
}

export function envelope(tenant: Tenant, account: TestAccount, transactions: unknown[], extra: object = {}) {
  return {
    import_supplier: tenant.supplier,
    external_account_number: account.external,
    transactions,
    ...extra,
  };
}

export function payment(transactionId: string, overrides: Record<string, unknown> = {}) {
  return {
    transaction_id: transactionId,
    transaction_date: '2019-10-04',
    amount: 71,
    type: 'PAYMENT',
    reason: 'GENERAL_CREDIT',
    reference: `reference ${transactionId}`,
    payment_type: 'DEBIT_CARD',
    ...overrides,
  };
}

export function supplyCharge(transactionId: string, overrides: Record<string, unknown> = {}) {
  return {
    transaction_id: transactionId,
    transaction_date: '2019-10-01',
    amount: 53.24,
    type: 'SUPPLY_CHARGE',
    product_code: 'SOME-PRODUCT-CODE-4321',
    line_items: [
      {
        rate_band: 'CONSUMPTION_STANDARD',
        start_date: '2019-10-01',
        end_date: '2019-11-01',
        number_of_units: 4.0,
        net_amount: 44.0,
        price_per_unit: 11.0,
        units: [4.0, 8.0],
      },
    ],
    tax_items: [{ amount: 9.24, tax_type: 'VAT', value_taxed: 44.0, rate: 0.21, unit_type: 'PROPORTION' }],
    ...overrides,
  };
}

export async function storedTransactions(app: TestApp, accountId: number) {
  return app.db.prisma.transaction.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
}

export async function notesOf(app: TestApp, accountId: number) {
  return app.db.prisma.note.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
}

export async function storedResults(app: TestApp, organisationId: number) {
  return app.db.prisma.requestResult.findMany({
    where: { organisationId, endpoint: 'transactions/create' },
    orderBy: { createdAt: 'asc' },
  });
}

export function organisationOf(tenant: Tenant): number {
  return tenant.report.organisations[0]!.id;
}

/** A date in UTC that has not begun anywhere on Earth yet. */
export function futureDay(): string {
  return new Date(Date.now() + 2 * 86_400_000 + 14 * 3600_000).toISOString().slice(0, 10);
}
