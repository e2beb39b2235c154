// Set-up of the notes tests (the historical-statement tests reuse the account part): a tenant with
// accounts in every import state, fresh imported accounts on demand, and the stored notes of an account.
import { applyFile } from '../../shared/admin/apply.use-case';
import { createTenant, request, type Tenant, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';

export const NOTES_PATH = '/v1/data-import/notes/create/';

export async function createTenantWithAccounts(
  app: TestApp,
  opts: Parameters<typeof createTenant>[1] = {},
): Promise<Tenant> {
  return createTenant(app, {
    ...opts,
    accounts: [
      { external_account_number: 'STAGED', state: 'staged' },
      { external_account_number: 'IN-PROGRESS', state: 'in_progress' },
      { external_account_number: 'FAILED', state: 'failed' },
      { external_account_number: 'IMPORTED', state: 'imported' },
    ],
  });
}

/** A new imported account under the tenant's supplier, so a test starts with no notes. */
export async function importAccount(app: TestApp, tenant: Tenant): Promise<{ number: string; id: number }> {
  const number = `EXT-${uniqueSuffix()}`;
  const report = await applyFile(app.db, {
    accounts: [{ import_supplier: tenant.supplier, external_account_number: number, state: 'imported' }],
  });
  const platformAccountNumber = report.accounts[0]!.platform_account_number!;
  const account = await app.db.prisma.account.findUniqueOrThrow({ where: { platformAccountNumber } });
  return { number, id: account.id };
}

export function postNotes(app: TestApp, token: string, body: unknown) {
  return request(app.baseUrl, 'POST', NOTES_PATH, { token, body });
}

export function storedNotes(app: TestApp, accountId: number) {
  return app.db.prisma.note.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
}
