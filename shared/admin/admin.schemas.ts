// Inputs of the single-purpose admin commands. Field names and rules are the apply format's, so an
// error names the same attr whichever way the platform team set something up. Values that come from
// the command line as text (booleans, numbers) are parsed here, not in the CLI.
import { z } from 'zod';
import {
  AccountSpec,
  DocumentRoot,
  ExternalAccountNumber,
  OrganisationName,
  SupplierReference,
  SupplierSpec,
  SupplierStatus,
} from './apply.schemas';

const TextBoolean = z.enum(['true', 'false']).transform((v) => v === 'true');

export const SupplierCreate = SupplierSpec;

export const SupplierUpdate = z.strictObject({
  code: SupplierReference,
  status: SupplierStatus.optional(),
  document_root: DocumentRoot.optional(),
  send_emails: TextBoolean.optional(),
});

export const OrganisationCreate = z.strictObject({
  name: OrganisationName,
  suppliers: z.array(SupplierReference).default([]),
  label: z.string().max(200).default(''),
});

export const OrganisationSuppliers = z.strictObject({
  organisation: OrganisationName,
  suppliers: z.array(SupplierReference).min(1),
});

export const OrganisationRef = z.strictObject({ organisation: OrganisationName });

export const ApiKeyCreate = z.strictObject({
  organisation: OrganisationName,
  label: z.string().max(200).default(''),
});

export const ApiKeyList = z.strictObject({ organisation: OrganisationName.optional() });

export const ApiKeyRevoke = z.strictObject({ id: z.coerce.number().int().positive() });

export const AccountPut = AccountSpec;

export const AccountRef = z.strictObject({
  import_supplier: SupplierReference,
  external_account_number: ExternalAccountNumber,
});

export const AccountList = z.strictObject({
  import_supplier: SupplierReference,
  after: ExternalAccountNumber.optional(),
  limit: z.coerce.number().int().min(1).max(1000).default(100),
});
