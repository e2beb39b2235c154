// `admin apply`: upsert suppliers, organisations (with API keys and supplier assignments) and
// accounts in one transaction. Applying the same file twice changes nothing the second time; a file
// with any error changes nothing at all.
import { randomBytes } from 'node:crypto';
import type { Database, DbClient } from '../platform/db';
import { ValidationError } from '../platform/errors';
import { parseOrThrow } from '../platform/validation';
import { digest, generateApiKey, keyPrefix } from '../auth/secrets';
import * as repo from './admin.repository';
import { ApplyFile, type AccountSpecT, type ApplyFileSpec } from './apply.schemas';

export interface ApplyReport {
  suppliers: string[];
  organisations: { name: string; id: number; api_key?: string }[];
  accounts: { import_supplier: string; external_account_number: string; state: string; platform_account_number: string | null }[];
}

const STATE = { staged: 'STAGED', in_progress: 'IN_PROGRESS', imported: 'IMPORTED', failed: 'FAILED' } as const;

export function generatePlatformAccountNumber(): string {
  return `A-${randomBytes(4).toString('hex').toUpperCase()}`;
}

export async function applyFile(db: Database, input: unknown): Promise<ApplyReport> {
  const file = parseOrThrow(ApplyFile, input);
  return db.prisma.$transaction(
    async (tx) => {
      await checkSupplierReferences(tx, file);
      const report: ApplyReport = { suppliers: [], organisations: [], accounts: [] };
      for (const s of file.suppliers) {
        await repo.upsertSupplier(tx, {
          code: s.code,
          status: s.status,
          documentRoot: s.document_root,
          sendEmails: s.send_emails,
        });
        report.suppliers.push(s.code);
      }
      for (const [i, o] of file.organisations.entries()) {
        report.organisations.push(await applyOrganisation(tx, o, i));
      }
      for (const [i, a] of file.accounts.entries()) {
        report.accounts.push(await applyAccount(tx, a, i));
      }
      return report;
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
}

async function checkSupplierReferences(tx: DbClient, file: ApplyFileSpec): Promise<void> {
  const declared = new Set(file.suppliers.map((s) => s.code));
  const referenced = [
    ...file.organisations.flatMap((o, i) => (o.suppliers ?? []).map((c, j) => ({ c, attr: `organisations.${i}.suppliers.${j}` }))),
    ...file.accounts.map((a, i) => ({ c: a.import_supplier, attr: `accounts.${i}.import_supplier` })),
  ];
  const existing = await repo.existingSupplierCodes(tx, [...new Set(referenced.map((r) => r.c))]);
  const missing = referenced.filter((r) => !declared.has(r.c) && !existing.has(r.c));
  if (missing.length > 0) {
    throw new ValidationError(
      missing.map((m) => ({ attr: m.attr, code: 'import_supplier_not_found', detail: `Unknown import supplier "${m.c}".` })),
      `Unknown import supplier "${missing[0]!.c}".`,
    );
  }
}

async function applyOrganisation(
  tx: DbClient,
  o: ApplyFileSpec['organisations'][number],
  index: number,
): Promise<ApplyReport['organisations'][number]> {
  const id = await repo.upsertOrganisation(tx, o.name);
  if (o.suppliers) await repo.setOrganisationSuppliers(tx, id, [...new Set(o.suppliers)]);
  if (o.api_key) {
    const existing = await repo.findApiKeyByDigest(tx, digest(o.api_key));
    if (existing && existing.organisationId !== id) {
      throw ValidationError.single(`organisations.${index}.api_key`, 'api_key_in_use', 'This API key belongs to another organisation.');
    }
    if (existing?.revokedAt) {
      throw ValidationError.single(`organisations.${index}.api_key`, 'api_key_revoked', 'This API key was revoked; choose another.');
    }
    if (!existing) await repo.insertApiKey(tx, { organisationId: id, prefix: keyPrefix(o.api_key), hash: digest(o.api_key) });
    return { name: o.name, id };
  }
  if ((await repo.countActiveApiKeys(tx, id)) === 0) {
    const apiKey = generateApiKey();
    await repo.insertApiKey(tx, { organisationId: id, prefix: keyPrefix(apiKey), hash: digest(apiKey) });
    return { name: o.name, id, api_key: apiKey };
  }
  return { name: o.name, id };
}

async function applyAccount(tx: DbClient, a: AccountSpecT, index: number): Promise<ApplyReport['accounts'][number]> {
  const attr = (field: string) => `accounts.${index}.${field}`;
  const existing = await repo.findProcess(tx, a.import_supplier, a.external_account_number);
  const summary = { import_supplier: a.import_supplier, external_account_number: a.external_account_number, state: a.state };
  if (a.state !== 'imported') {
    if (existing?.account) {
      throw ValidationError.single(attr('state'), 'account_already_imported', 'An imported account cannot go back to an earlier state.');
    }
    for (const field of ['platform_account_number', 'account_created_at', 'open_statement_from'] as const) {
      if (a[field] !== undefined) {
        throw ValidationError.single(attr(field), 'only_for_imported_accounts', `${field} is only allowed with state "imported".`);
      }
    }
    await repo.upsertProcess(tx, a.import_supplier, a.external_account_number, STATE[a.state]);
    return { ...summary, platform_account_number: null };
  }

  const processId = await repo.upsertProcess(tx, a.import_supplier, a.external_account_number, 'IMPORTED');
  let accountId = existing?.account?.id;
  let platformAccountNumber = existing?.account?.platformAccountNumber;
  if (accountId === undefined || platformAccountNumber === undefined) {
    const createdAt = a.account_created_at ? new Date(a.account_created_at) : new Date();
    platformAccountNumber = a.platform_account_number ?? generatePlatformAccountNumber();
    accountId = await repo.insertAccount(tx, { processId, platformAccountNumber, createdAt });
    const from = a.open_statement_from ?? createdAt.toISOString().slice(0, 10);
    await repo.openStatementPeriod(tx, accountId, new Date(`${from}T00:00:00Z`));
  } else {
    if (a.platform_account_number !== undefined && a.platform_account_number !== platformAccountNumber) {
      throw ValidationError.single(
        attr('platform_account_number'),
        'platform_account_number_mismatch',
        `The account is already imported as ${platformAccountNumber}.`,
      );
    }
    if (a.open_statement_from !== undefined) {
      const from = new Date(`${a.open_statement_from}T00:00:00Z`);
      const open = await repo.findOpenStatementPeriod(tx, accountId);
      if (!open) await repo.openStatementPeriod(tx, accountId, from);
      else if (open.startsOn.getTime() !== from.getTime()) {
        if (from <= open.startsOn) {
          throw ValidationError.single(
            attr('open_statement_from'),
            'statement_period_not_after_open_period',
            'A new open statement period must start after the current one.',
          );
        }
        await repo.rollStatementPeriod(tx, open.id, accountId, from);
      }
    }
  }
  return { ...summary, platform_account_number: platformAccountNumber };
}
