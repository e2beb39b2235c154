// Names and descriptions for the request schemas the components own. Nothing here changes how a
// request parses: it only tells the generator what to call a schema and how to describe it. Where a
// schema's rendering loses information (a transform hides the date format, a `string().pipe(enum)`
// hides the choices), the keywords are given back here.
import { z } from 'zod';
import { NoteDocument, Note, NoteResult } from '../notes/note.schemas';
import {
  CreatePaymentInstructionRequest,
  INSTRUCTION_TYPES,
  VENDOR_TYPES,
} from '../payment-instructions/payment-instruction.schemas';
import { AccountReference, AliasedAccountReference, DocumentPath, IsoDate, IsoDateTime } from '../platform/fields';
import { HistoricalStatement } from '../statements/statement.schemas';
import { Transaction } from '../transactions/transaction.schemas';
import { annotate, named } from '../openapi/schema-registry';

const decimal = (whole: number, places: number, unit = '') =>
  `Decimal${unit}: a JSON number or a decimal string, at most ${whole} digits before the point and ${places} after it. ` +
  'Responses echo it as a string with at least two decimal places.';

/** The schema inside optional/nullable wrappers and transforms (a pipe's input side). */
function unwrap(schema: unknown): unknown {
  if (schema instanceof z.ZodOptional || schema instanceof z.ZodNullable || schema instanceof z.ZodDefault) {
    return unwrap(schema.unwrap());
  }
  if (schema instanceof z.ZodPipe) return unwrap(schema.in);
  return schema;
}

function field(schema: unknown, key: string): z.ZodType | undefined {
  const object = unwrap(schema);
  return object instanceof z.ZodObject ? (object.shape as Record<string, z.ZodType | undefined>)[key] : undefined;
}

function element(schema: unknown): z.ZodType | undefined {
  const array = unwrap(schema);
  return array instanceof z.ZodArray ? (array.element as z.ZodType) : undefined;
}

// Lookups into schemas a component does not export return undefined when that component reshapes
// them; the schema then renders unnamed, and test/openapi notices the missing component.
function annotateIf(schema: unknown, metadata: Parameters<typeof annotate>[1]): void {
  if (schema instanceof z.ZodType) annotate(schema, metadata);
}
function nameIf(refId: string, schema: unknown, metadata: Parameters<typeof named>[2] = {}): void {
  if (schema instanceof z.ZodType) named(refId, schema, metadata);
}

/** shared/platform/fields.ts IdentifierField and TextField, as the descriptions state them. */
const IDENTIFIER_RULE =
  'An identifier: spaces at either end are refused (`invalid`), never trimmed; spaces only are `blank`.';

export function describeSharedFields(): void {
  annotate(IsoDate, { format: 'date', description: 'Calendar date, `YYYY-MM-DD`.' });
  annotate(IsoDateTime, {
    format: 'date-time',
    description:
      'ISO 8601 datetime with seconds and `Z` or an offset, e.g. `2020-02-01T12:00:00Z`, from `0100-01-01T00:00:00Z` ' +
      'to `9999-12-31T23:59:59Z` (dates take the same years, 0100 to 9999; anything else is `invalid`). A note stores ' +
      'its datetimes at whole seconds (a fraction is cut off) and answers them as `YYYY-MM-DDTHH:MM:SSZ`.',
  });
  annotate(DocumentPath, {
    maxLength: 1024,
    description:
      "Path relative to the import supplier's document root in object storage (`<bucket>/<root>/<path>`): " +
      'no leading `/`, no `.`, `..` or empty segments, no backslashes or control characters.',
    example: 'some/path/to/a/document.pdf',
  });
  annotate(AccountReference.import_supplier, {
    description: 'Code of the import supplier the account was imported on. ' + IDENTIFIER_RULE,
    example: 'ACME_ENERGY',
  });
  annotate(AccountReference.external_account_number, {
    description: 'Account number in the external system. ' + IDENTIFIER_RULE,
    example: 'EXTERNAL-1234',
  });
  annotate(AliasedAccountReference.external_account_number, {
    description: 'Account number in the external system. Required unless the deprecated `account_number` carries it.',
    example: 'EXTERNAL-1234',
  });
  annotate(AliasedAccountReference.account_number, {
    deprecated: true,
    'x-use-instead': 'external_account_number',
    description:
      'Deprecated name of `external_account_number`. One of the two is required (`required` on `external_account_number`); ' +
      'both may be sent only with the same value (else `mutually_exclusive_field_required`).',
  });
}

export function describeNoteSchemas(): void {
  named('NoteDocument', NoteDocument);
  named('Note', Note, {
    description:
      'A note needs `body` or at least one document path (`note_body_or_document_path_not_found`); a body of spaces only ' +
      'is `blank`, and `external_id` follows the identifier rule (no spaces at either end, `invalid`). `created_at` ' +
      'defaults to the second of the request; `unpin_at` must not be earlier than a `created_at` that was sent ' +
      '(`note_unpin_at_earlier_than_creation_date`). Unknown fields are ignored.',
  });
  named('NoteResult', NoteResult, {
    description:
      'One submitted note: the stored `created_at`, the `body` (empty string when none), the outcome, and every optional ' +
      'field that was sent. A `NOTE_ALREADY_EXISTS` item echoes the stored note (its values, and every optional field ' +
      'it sets) and carries `matches_stored: false` when the note sent differs from it.',
  });
}

export function describeStatementSchemas(): void {
  named('HistoricalStatement', HistoricalStatement, {
    description:
      'Both bill-period bounds are inclusive; `bill_period_to_date` must not precede `bill_period_from_date` ' +
      '(`start_date_later_than_end_date`, only when both are valid dates). `statement_id` and `number` are identifiers: ' +
      'spaces at either end are refused (`invalid`), never trimmed; spaces only are `blank`. ' +
      "`gross_amount` is an integer in the currency's minor unit. Unknown fields are ignored and not echoed.",
  });
}

export function describeTransactionSchemas(): void {
  const options = (Transaction as z.ZodDiscriminatedUnion<z.ZodObject[]>).options;
  const byType = (type: string) =>
    options.find((o) => (unwrap(o.shape.type) as z.ZodLiteral | undefined)?.value === type);
  for (const type of ['CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT', 'SUPPLY_CHARGE']) {
    const refId = `${type
      .split('_')
      .map((w) => w[0] + w.slice(1).toLowerCase())
      .join('')}Transaction`;
    nameIf(refId, byType(type), { description: `A transaction of type \`${type}\`.` });
  }
  named('Transaction', Transaction, {
    description:
      'One transaction; `type` selects the shape. `transaction_id` and the codes (`reference`, `product_code`, ' +
      '`supply_point_identifier`, rate and tax codes) are identifiers: spaces at either end are refused (`invalid`), ' +
      'never trimmed. Text (`reason`, `note`, `display_note`) and identifiers of spaces only are `blank`. A date that is ' +
      'no calendar day is `invalid` only (never also `transaction_in_future`).',
  });

  const charge = byType('CHARGE');
  const supplyCharge = byType('SUPPLY_CHARGE');
  const lineItem = element(field(supplyCharge, 'line_items'));
  const taxItem = element(field(supplyCharge, 'tax_items'));
  nameIf('LineItem', lineItem, {
    description:
      'Give at most one of `rate_band`, `rate_specification_code`, `time_series_specification_code`. ' +
      '`net_amount` must equal `price_per_unit` × `number_of_units` when a price is given; `units` are the start and end readings.',
  });
  nameIf('TaxItem', taxItem);
  annotateIf(field(charge, 'amount'), { description: decimal(10, 10, " in the currency's major unit") });
  // PAYMENT and REPAYMENT share one positive-amount schema.
  annotateIf(field(byType('PAYMENT'), 'amount'), {
    description: `${decimal(10, 10, " in the currency's major unit")} Must be positive.`,
  });
  annotateIf(field(lineItem, 'number_of_units'), { description: decimal(12, 4) });
  annotateIf(field(lineItem, 'price_per_unit'), { description: decimal(8, 7) });
  annotateIf(field(taxItem, 'rate'), { description: decimal(15, 5) });
}

export function describePaymentInstructionSchemas(): void {
  const request = CreatePaymentInstructionRequest;
  annotateIf(field(request, 'vendor'), {
    enum: Object.keys(VENDOR_TYPES),
    description: 'Payment vendor that holds the instruction.',
  });
  annotateIf(field(request, 'type'), {
    enum: [...INSTRUCTION_TYPES],
    description: `Instruction type. Vendors verify only some: ${Object.entries(VENDOR_TYPES)
      .map(([vendor, types]) => `${vendor}: ${types.join(', ')}`)
      .join('; ')}.`,
  });
  annotateIf(field(request, 'reference'), {
    description: "The instruction's reference at the vendor (for STRIPE, a PaymentMethod id).",
  });
  annotateIf(field(request, 'instruction_reference'), {
    deprecated: true,
    description: 'Deprecated alias of `reference`; send one of the two.',
  });
  annotateIf(field(request, 'ledger_code'), {
    description:
      'Not supported: this service keeps no ledger types, so any value is refused with `ledger_code_does_not_exist`.',
  });
}
