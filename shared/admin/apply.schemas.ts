// The `admin apply <file.json>` format: a declarative description of suppliers, organisations and
// accounts that the platform team (and the tests) upsert idempotently. The field schemas here are also
// the ones the single-purpose admin commands validate with (admin.schemas.ts).
import { z } from 'zod';
import { API_KEY_MIN_LENGTH } from '../auth/secrets';
import { DocumentPath, IsoDate, IsoDateTime } from '../platform/fields';

const withCode = (code: string, message: string) => ({ message, params: { code } });

// Codes appear in URL paths (`/account-transfer-status/<code>/…`): no slashes, spaces or dots-only names.
export const SupplierCode = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]*$/, 'Use letters, digits, "_" and "-" only, starting with a letter or digit.');

/** A supplier code used as a reference: any existing code, whatever its spelling rules were. */
export const SupplierReference = z.string().min(1).max(128);

export const SupplierStatus = z.enum(['Ongoing', 'Paused', 'Complete']);

/**
 * The supplier's root in the bucket: a relative path by DocumentPath's rules. Required, and no two
 * suppliers' roots may be equal or nested (suppliers.use-cases.ts): one supplier's document paths must
 * never name another's documents.
 */
export const DocumentRoot = z
  .string()
  .min(1)
  .refine(
    // An empty root is reported once, by min(1), as `blank`.
    (root) => root === '' || DocumentPath.safeParse(root).success,
    withCode('invalid_document_path', 'A document root is a relative path: no leading "/", no ".", ".." or empty segments.'),
  );

// Written out rather than `.min()`: the generic mapping reports every too-short string as `blank`.
export const ApiKeyValue = z
  .string()
  .max(256)
  .refine((k) => k.length >= API_KEY_MIN_LENGTH, withCode('min_length', `API keys have at least ${API_KEY_MIN_LENGTH} characters.`));

export const OrganisationName = z.string().min(1).max(200);
export const ExternalAccountNumber = z.string().min(1).max(128);
export const PlatformAccountNumber = z.string().min(1).max(128);
export const AccountState = z.enum(['staged', 'in_progress', 'imported', 'failed']);

export const SupplierSpec = z.strictObject({
  code: SupplierCode,
  status: SupplierStatus.default('Ongoing'),
  document_root: DocumentRoot,
  send_emails: z.boolean().default(false),
});

export const OrganisationSpec = z.strictObject({
  name: OrganisationName,
  api_key: ApiKeyValue.optional(),
  suppliers: z.array(SupplierReference).optional(),
});

export const AccountSpec = z.strictObject({
  import_supplier: SupplierReference,
  external_account_number: ExternalAccountNumber,
  state: AccountState,
  platform_account_number: PlatformAccountNumber.optional(),
  account_created_at: IsoDateTime.optional(),
  open_statement_from: IsoDate.optional(),
});

export const ApplyFile = z.strictObject({
  suppliers: z.array(SupplierSpec).default([]),
  organisations: z.array(OrganisationSpec).default([]),
  accounts: z.array(AccountSpec).default([]),
});

export type ApplyFileInput = z.input<typeof ApplyFile>;
export type ApplyFileSpec = z.output<typeof ApplyFile>;
export type SupplierSpecT = z.output<typeof SupplierSpec>;
export type AccountSpecT = z.output<typeof AccountSpec>;
