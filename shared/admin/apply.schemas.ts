// The `admin apply <file.json>` format: a declarative description of suppliers, organisations and
// accounts that the platform team (and the tests) upsert idempotently. The field schemas here are also
// the ones the single-purpose admin commands validate with (admin.schemas.ts).
import { z } from 'zod';
import { API_KEY_MIN_LENGTH } from '../auth/secrets';
import { DecimalField, DocumentPath, IdentifierField, IsoDate, IsoDateTime } from '../platform/fields';

const withCode = (code: string, message: string) => ({ message, params: { code } });

// Codes appear in URL paths (`/account-transfer-status/<code>/…`): no slashes, spaces or dots-only names.
export const SupplierCode = z
  .string()
  .min(1)
  // abort: the pattern below then only ever runs on at most 128 characters.
  .max(128, { abort: true })
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
    withCode(
      'invalid_document_path',
      'A document root is a relative path: no leading "/", no ".", ".." or empty segments.',
    ),
  );

// Written out rather than `.min()`: the generic mapping reports every too-short string as `blank`.
const ApiKeyValue = z
  .string()
  .max(256)
  .refine(
    (k) => k.length >= API_KEY_MIN_LENGTH,
    withCode('min_length', `API keys have at least ${API_KEY_MIN_LENGTH} characters.`),
  );

export const OrganisationName = z.string().min(1).max(200);
// The API refuses identifiers with whitespace at either end, so an account must not be created with one.
export const ExternalAccountNumber = IdentifierField(128);
const PlatformAccountNumber = IdentifierField(128);
// A Stripe customer id: `cus_` and alphanumerics (length checked first, so the pattern runs on 255 at most).
const StripeCustomerId = z
  .string()
  .max(255, { abort: true })
  .regex(/^cus_[A-Za-z0-9]+$/, 'A Stripe customer id is "cus_" followed by letters and digits.');
const AccountState = z.enum(['staged', 'in_progress', 'imported', 'failed']);
/** The fields an account file may give only for an account in state "imported". */
export const IMPORT_ONLY_FIELDS = [
  'platform_account_number',
  'account_created_at',
  'open_statement_from',
  'stripe_customer',
] as const;

export const SupplierSpec = z.strictObject({
  code: SupplierCode,
  status: SupplierStatus.default('Ongoing'),
  document_root: DocumentRoot,
  send_emails: z.boolean().default(false),
});

const OrganisationSpec = z.strictObject({
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
  stripe_customer: StripeCustomerId.optional(),
});

const ProductCode = z.string().min(1).max(255);
const MAX_RATES_PER_PRODUCT = 10_000;

const RateSpec = z
  .strictObject({
    rate_band: z.string().min(1).max(255),
    // The contract's line-item price_per_unit format, so every price a transaction can send is comparable.
    price_per_unit: DecimalField(8, 7),
    valid_from: IsoDate,
    valid_to: IsoDate.optional(),
  })
  .refine((r) => r.valid_to === undefined || r.valid_to > r.valid_from, {
    path: ['valid_to'],
    ...withCode(
      'start_date_later_than_end_date',
      'valid_to (the first day the rate no longer applies) must be after valid_from.',
    ),
  });

const ProductSpec = z
  .strictObject({
    code: ProductCode,
    // The meter points an agreement on this product may be on; left out, any.
    supply_type: z.enum(['ELECTRICITY', 'GAS']).optional(),
    rates: z.array(RateSpec).max(MAX_RATES_PER_PRODUCT),
  })
  .superRefine((p, ctx) => {
    const overlap = findOverlappingRates(p.rates);
    if (overlap !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['rates', overlap],
        message: `Rate ${overlap} overlaps an earlier rate of band "${p.rates[overlap]!.rate_band}": one price per band per day.`,
        params: { code: 'overlapping_rates' },
      });
    }
  });

/** Index of the first rate whose validity overlaps an earlier one of the same band; undefined if none. */
function findOverlappingRates(
  rates: { rate_band: string; valid_from: string; valid_to?: string }[],
): number | undefined {
  const index = rates.findIndex((r, i) =>
    rates
      .slice(0, i)
      .some(
        (e) =>
          e.rate_band === r.rate_band &&
          (e.valid_to === undefined || r.valid_from < e.valid_to) &&
          (r.valid_to === undefined || e.valid_from < r.valid_to),
      ),
  );
  return index < 0 ? undefined : index;
}

export const ApplyFile = z.strictObject({
  suppliers: z.array(SupplierSpec).default([]),
  organisations: z.array(OrganisationSpec).default([]),
  products: z.array(ProductSpec).default([]),
  accounts: z.array(AccountSpec).default([]),
  // Teams an imported account may be linked to (`operations_team_name`); applying adds, never removes.
  operations_teams: z
    .array(z.strictObject({ name: IdentifierField(255) }))
    .max(10_000)
    .default([]),
});

export type ApplyFileInput = z.input<typeof ApplyFile>;
export type ApplyFileSpec = z.output<typeof ApplyFile>;
export type SupplierSpecT = z.output<typeof SupplierSpec>;
export type AccountSpecT = z.output<typeof AccountSpec>;
export type ProductSpecT = z.output<typeof ProductSpec>;
