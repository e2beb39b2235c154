// Set-up of the historical-statement tests; tenants and accounts come from the notes fixture.
import { request, type TestApp } from '../helpers/app';

export { createTenantWithAccounts, importAccount } from '../notes/notes.fixture';

export const STATEMENTS_PATH = '/v1/data-import/historical-statements/create/';

export function postStatements(app: TestApp, token: string, body: unknown) {
  return request(app.baseUrl, 'POST', STATEMENTS_PATH, { token, body });
}

export function storedStatements(app: TestApp, accountId: number) {
  return app.db.prisma.historicalStatement.findMany({ where: { accountId }, orderBy: { id: 'asc' } });
}
