// The `admin apply <file.json>` format: a declarative description of suppliers, organisations and
// accounts that the platform team (and the tests) upsert idempotently.
import { z } from 'zod';
import { API_KEY_MIN_LENGTH } from '../auth/secrets';

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'Expected YYYY-MM-DD.').refine(
  (s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s),
  'Not a real calendar date.',
);
const isoDateTime = z.iso.datetime({ offset: true });
const code = z.string().min(1).max(128);

export const SupplierSpec = z.strictObject({
  code,
  status: z.enum(['Ongoing', 'Paused', 'Complete']).default('Ongoing'),
  document_root: z.string().max(1024).default(''),
  send_emails: z.boolean().default(false),
});

export const OrganisationSpec = z.strictObject({
  name: z.string().min(1).max(200),
  api_key: z.string().min(API_KEY_MIN_LENGTH).max(256).optional(),
  suppliers: z.array(code).optional(),
});

export const AccountSpec = z.strictObject({
  import_supplier: code,
  external_account_number: z.string().min(1).max(128),
  state: z.enum(['staged', 'in_progress', 'imported', 'failed']),
  platform_account_number: z.string().min(1).max(128).optional(),
  account_created_at: isoDateTime.optional(),
  open_statement_from: isoDate.optional(),
});

export const ApplyFile = z.strictObject({
  suppliers: z.array(SupplierSpec).default([]),
  organisations: z.array(OrganisationSpec).default([]),
  accounts: z.array(AccountSpec).default([]),
});

export type ApplyFileInput = z.input<typeof ApplyFile>;
export type ApplyFileSpec = z.output<typeof ApplyFile>;
export type AccountSpecT = z.output<typeof AccountSpec>;
