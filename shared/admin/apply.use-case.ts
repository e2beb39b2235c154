// `admin apply`: upsert suppliers, organisations (with API keys and supplier assignments), products
// (with their rates), operations teams and accounts in one transaction. Applying the same file twice changes nothing the second time; a file
// with any error changes nothing at all.
import { readFile } from 'node:fs/promises';
import { digest } from '../auth/secrets';
import type { Database, DbClient } from '../platform/db';
import { NotFoundError, ValidationError } from '../platform/errors';
import { parseOrThrow } from '../platform/validation';
import { upsertAccount, type AccountSummary } from './accounts.use-cases';
import { ApplyFile, type ApplyFileSpec } from './apply.schemas';
import * as orgRepo from './organisations.repository';
import { issueApiKey } from './organisations.use-cases';
import { applyProduct } from './products.use-cases';
import { checkSupplierReferences, upsertSupplier } from './suppliers.use-cases';

/**
 * The most accounts a JSON file may carry. They are applied one by one inside the file's one
 * transaction (all or nothing), which has 120 s; a larger list belongs in the streamed NDJSON/CSV form
 * (account-file.use-case.ts: set-based, committed in chunks, resumable), and is refused at once with the
 * commands that move it there rather than failing after two minutes.
 */
export const MAX_JSON_ACCOUNTS = 5_000;

export interface ApplyReport {
  suppliers: string[];
  /** `api_key` appears only when one was generated: it is shown this once. */
  organisations: { name: string; id: number; api_key?: string }[];
  products: string[];
  accounts: AccountSummary[];
  operations_teams: string[];
}

/** Reads and applies a JSON file; a file that is not JSON is a parse_error naming the file. */
export async function applyJsonFile(db: Database, path: string): Promise<ApplyReport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new NotFoundError('file_not_found', `Cannot read ${path}: ${(err as Error).message}`);
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    throw ValidationError.single(
      'non_field_errors',
      'parse_error',
      `${path} is not valid JSON: ${(err as Error).message}`,
    );
  }
  refuseLargeAccountList(path, input);
  return applyFile(db, input);
}

const shellQuoted = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function refuseLargeAccountList(path: string, input: unknown): void {
  const accounts = (input as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(accounts) || accounts.length <= MAX_JSON_ACCOUNTS) return;
  const ndjson = `${path.replace(/\.json$/i, '')}.accounts.ndjson`;
  const split =
    `node -e 'for (const a of JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).accounts) ` +
    `console.log(JSON.stringify(a))' ${shellQuoted(path)} > ${shellQuoted(ndjson)}`;
  throw ValidationError.single(
    'accounts',
    'too_many_accounts_for_json',
    [
      `${path} has ${accounts.length} accounts; a JSON file takes at most ${MAX_JSON_ACCOUNTS} (applied one by one in one transaction). Nothing was applied.`,
      'Apply large account lists in the streamed form (set-based, committed in chunks of 2,000, resumable):',
      `  ${split}`,
      `  then remove "accounts" from ${path} and apply it for the suppliers and organisations, and`,
      `  npm run --silent admin -- apply ${shellQuoted(ndjson)}`,
    ].join('\n'),
  );
}

export async function applyFile(db: Database, input: unknown): Promise<ApplyReport> {
  const file = parseOrThrow(ApplyFile, input);
  return db.prisma.$transaction(
    async (tx) => {
      await checkSupplierReferences(tx, referencesOf(file), new Set(file.suppliers.map((s) => s.code)));
      const report: ApplyReport = {
        suppliers: [],
        organisations: [],
        products: [],
        accounts: [],
        operations_teams: [],
      };
      for (const [i, s] of file.suppliers.entries()) {
        await at(`suppliers.${i}`, () => upsertSupplier(tx, s));
        report.suppliers.push(s.code);
      }
      for (const [i, o] of file.organisations.entries()) {
        report.organisations.push(await at(`organisations.${i}`, () => applyOrganisation(tx, o)));
      }
      for (const [i, p] of file.products.entries()) {
        await at(`products.${i}`, () => applyProduct(tx, p));
        report.products.push(p.code);
      }
      const teams = [...new Set(file.operations_teams.map((t) => t.name))];
      if (teams.length > 0) {
        await tx.$executeRaw`INSERT INTO operations_teams (name) SELECT unnest(${teams}::text[]) ON CONFLICT DO NOTHING`;
        report.operations_teams.push(...teams);
      }
      for (const [i, a] of file.accounts.entries()) {
        report.accounts.push(await at(`accounts.${i}`, () => upsertAccount(tx, a)));
      }
      return report;
    },
    { timeout: 120_000, maxWait: 10_000 },
  );
}

function referencesOf(file: ApplyFileSpec): { code: string; attr: string }[] {
  return [
    ...file.organisations.flatMap((o, i) =>
      (o.suppliers ?? []).map((code, j) => ({ code, attr: `organisations.${i}.suppliers.${j}` })),
    ),
    ...file.accounts.map((a, i) => ({ code: a.import_supplier, attr: `accounts.${i}.import_supplier` })),
  ];
}

/** Runs one item's step, prefixing the attrs of its validation errors with the item's path. */
async function at<T>(prefix: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    if (!(err instanceof ValidationError)) throw err;
    const errors = err.errors.map((e) => ({ ...e, attr: `${prefix}.${e.attr}` }));
    throw new ValidationError(errors, err.message, err.code);
  }
}

/**
 * Upserts the organisation; `suppliers`, when given, becomes its whole supplier list. A given
 * `api_key` is added unless it is already this organisation's; without one, a key is generated only
 * when the organisation has no active key.
 */
async function applyOrganisation(
  tx: DbClient,
  o: ApplyFileSpec['organisations'][number],
): Promise<ApplyReport['organisations'][number]> {
  const id = await orgRepo.upsertOrganisation(tx, o.name);
  if (o.suppliers) await orgRepo.setOrganisationSuppliers(tx, id, [...new Set(o.suppliers)]);
  if (o.api_key) {
    const existing = await orgRepo.findApiKeyByDigest(tx, digest(o.api_key));
    if (existing && existing.organisationId !== id) {
      throw ValidationError.single('api_key', 'api_key_in_use', 'This API key belongs to another organisation.');
    }
    if (existing?.revokedAt) {
      throw ValidationError.single('api_key', 'api_key_revoked', 'This API key was revoked; choose another.');
    }
    if (!existing) await issueApiKey(tx, id, '', o.api_key);
    return { name: o.name, id };
  }
  if ((await orgRepo.countActiveApiKeys(tx, id)) === 0) {
    return { name: o.name, id, api_key: (await issueApiKey(tx, id)).api_key };
  }
  return { name: o.name, id };
}
