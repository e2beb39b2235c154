// POST /v1/data-import/payment-instruction/create/: the request as the API validates it and as the
// worker re-parses it from the job (the parsed output is itself a valid input, so both agree).
import { z } from 'zod';
import { AccountReference, DryRun, IsoDate } from '../platform/fields';

/** The contract's payment-instruction types (§4); which ones work depends on the vendor. */
export const INSTRUCTION_TYPES = ['BPAY', 'CARD', 'CUSTOM', 'DIRECT_DEBIT', 'GMO_REFUND', 'PAYMENT_SLIP'] as const;
export type InstructionType = (typeof INSTRUCTION_TYPES)[number];

/** Vendors this service has an adapter for, and the instruction types each adapter can verify. */
export const VENDOR_TYPES = {
  STRIPE: ['CARD'],
} as const satisfies Record<string, readonly InstructionType[]>;
export type Vendor = keyof typeof VENDOR_TYPES;
const VENDORS = Object.keys(VENDOR_TYPES) as [Vendor, ...Vendor[]];

// A missing or null choice must read `required` / `null`, not `invalid_choice`: z.enum reports all
// three as invalid_value, so the string check runs first.
const choice = <T extends readonly [string, ...string[]]>(values: T) => z.string().pipe(z.enum(values));

/**
 * What a vendor's reference must look like before anyone asks the vendor. A Stripe CARD reference is a
 * PaymentMethod id: `pm_` then letters, digits and underscores (Stripe's test-mode ids such as
 * `pm_card_visa` have them; ids are at most 255 characters). The reference becomes a segment of the
 * vendor's URL, so nothing that could change the URL (`/`, `.`, `?`, `#`, `%`, whitespace) passes.
 * Anything else (a card number, a customer or a legacy card id) is refused without a vendor call, and
 * its text is never echoed back.
 */
const REFERENCE_SHAPES: Record<Vendor, { pattern: RegExp; maxLength: number; detail: string }> = {
  STRIPE: {
    pattern: /^pm_[A-Za-z0-9_]+$/,
    maxLength: 255,
    detail:
      'A STRIPE reference is a Stripe PaymentMethod id: "pm_" followed by letters, digits and underscores, at most 255 characters.',
  },
};

const issue = (code: string, message: string, path: string[]) =>
  ({ code: 'custom', message, path, params: { code } }) as const;

// The fields' own bounds: a reference outside them already has its one error (blank, max_length).
const MAX_REFERENCE = 512;
const MAX_INSTRUCTION_REFERENCE = 128;

/**
 * Exactly one of reference and its deprecated alias. Runs on any object body, even one whose other
 * fields failed, so `{}` lists `reference` with every other missing field.
 */
function checkReferencePresence(value: unknown, ctx: z.core.$RefinementCtx): void {
  const { reference, instruction_reference: alias } = value as Record<string, unknown>;
  if (reference !== undefined && alias !== undefined) {
    ctx.addIssue(
      issue(
        'mutually_exclusive_field_required',
        'Send either reference or the deprecated instruction_reference, not both.',
        ['instruction_reference'],
      ),
    );
  } else if (reference === undefined && alias === undefined) {
    ctx.addIssue(issue('required', 'This field is required.', ['reference']));
  }
}

/** The one reference sent, unless its own field already failed (blank or over its bound). */
function sentReference(v: { reference?: string; instruction_reference?: string }) {
  const { reference, instruction_reference: alias } = v;
  if (reference !== undefined && alias === undefined && reference.length >= 1 && reference.length <= MAX_REFERENCE) {
    return { attr: 'reference', reference };
  }
  if (
    alias !== undefined &&
    reference === undefined &&
    alias.length >= 1 &&
    alias.length <= MAX_INSTRUCTION_REFERENCE
  ) {
    return { attr: 'instruction_reference', reference: alias };
  }
  return undefined;
}

const WHEN_OBJECT = {
  when: (payload: { value: unknown }) =>
    typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};

export const CreatePaymentInstructionRequest = z
  .object({
    ...AccountReference,
    vendor: choice(VENDORS),
    type: choice(INSTRUCTION_TYPES),
    reference: z.string().min(1).max(MAX_REFERENCE).optional(),
    // Deprecated contract alias of `reference`; normalised into `reference` below.
    instruction_reference: z.string().min(1).max(MAX_INSTRUCTION_REFERENCE).optional(),
    valid_from: IsoDate.nullable().optional(),
    use_for_scheduled_payments: z.boolean().nullable().optional(),
    // This service keeps no ledger types, so no code can exist (the contract's `ledger_code_does_not_exist`).
    ledger_code: z.string().max(255).optional(),
    dry_run: DryRun,
  })
  .superRefine((v, ctx) => {
    const types: readonly string[] = VENDOR_TYPES[v.vendor];
    if (!types.includes(v.type)) {
      ctx.addIssue(
        issue(
          'invalid_choice',
          `"${v.type}" is not a valid choice for vendor ${v.vendor}. Valid choices: ${types.join(', ')}.`,
          ['type'],
        ),
      );
    }
    // checkReferencePresence reports a missing or doubled reference; the shape of the one sent is read here.
    const sent = sentReference(v);
    if (sent) {
      const { attr, reference } = sent;
      const shape = REFERENCE_SHAPES[v.vendor];
      // The length first: the pattern only ever runs on a bounded string.
      if (reference.length > shape.maxLength || !shape.pattern.test(reference)) {
        ctx.addIssue(issue('invalid_vendor_reference', shape.detail, [attr]));
      }
    }
    if (v.ledger_code !== undefined) {
      ctx.addIssue(
        issue('ledger_code_does_not_exist', `Ledger code "${v.ledger_code}" does not exist.`, ['ledger_code']),
      );
    }
  })
  .superRefine(checkReferencePresence, WHEN_OBJECT)
  .transform(({ instruction_reference, ledger_code: _ledger, reference, ...rest }) => ({
    ...rest,
    reference: (reference ?? instruction_reference)!,
  }));

export type CreatePaymentInstruction = z.output<typeof CreatePaymentInstructionRequest>;

export interface CreatedPaymentInstruction {
  platform_account_number: string;
  reference: string;
}
