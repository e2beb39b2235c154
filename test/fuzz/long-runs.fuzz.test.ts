// Every field checked by a pattern, fed a long run of characters it accepts followed (or broken) by
// one it refuses: the refusal must come in a time that does not grow with the run. Ambiguous patterns
// (two adjacent runs of \d) took seconds for 60,000 digits and minutes for a megabyte.
import fc from 'fast-check';
import type { z } from 'zod';
import { SupplierCode } from '../../shared/admin/apply.schemas';
import { StaffUsername } from '../../shared/staff/staff.schemas';
import { DecimalField, DocumentPath, IsoDate, IsoDateTime } from '../../shared/platform/fields';
import { CreatePaymentInstructionRequest } from '../../shared/payment-instructions/payment-instruction.schemas';
import { parseIdempotencyKey } from '../../shared/requests/request-headers';
import { fuzzOptions, FUZZ_TEST_TIMEOUT_MS } from './fuzz-world';

jest.setTimeout(FUZZ_TEST_TIMEOUT_MS);

/** Far below what a quadratic pattern needs for these lengths, far above what a linear check needs on a busy machine. */
const BUDGET_MS = 1_000;

const refuses = (schema: z.ZodType) => (text: string) => !schema.safeParse(text).success;

interface PatternField {
  name: string;
  /** One character the field accepts as part of a long run. */
  valid: fc.Arbitrary<string>;
  /** One character that makes the whole value invalid. */
  bad: fc.Arbitrary<string>;
  refuses(text: string): boolean;
}

const decimalRefuses = refuses(DecimalField(10, 10));

const FIELDS: PatternField[] = [
  {
    name: 'a decimal (amounts, units, prices)',
    valid: fc.constantFrom('1', '0', '9'),
    bad: fc.constantFrom('x', '.', '-', 'e', ' 1'),
    refuses: decimalRefuses,
  },
  {
    name: 'a decimal with a point inside the run',
    valid: fc.constantFrom('1', '2'),
    bad: fc.constantFrom('x', '.'),
    refuses: (text) => decimalRefuses(`1.${text}`),
  },
  {
    name: 'a date',
    valid: fc.constantFrom('1', '-', '0'),
    bad: fc.constantFrom('x', 'T', '/'),
    refuses: refuses(IsoDate),
  },
  {
    name: 'a datetime',
    valid: fc.constantFrom('1', '-', ':', 'T'),
    bad: fc.constantFrom('x', 'Q'),
    refuses: refuses(IsoDateTime),
  },
  {
    name: 'a document path',
    valid: fc.constantFrom('a', '/b', '.', '%2e'),
    bad: fc.constantFrom('\\', '\u0000', '//'),
    refuses: refuses(DocumentPath),
  },
  {
    name: 'a staff user name',
    valid: fc.constantFrom('a', '.', '@', ' '),
    bad: fc.constantFrom('/', '!', '\u00e9'),
    refuses: refuses(StaffUsername),
  },
  {
    name: 'a supplier code',
    valid: fc.constantFrom('A', '_', '-', '9'),
    bad: fc.constantFrom(' ', '/', '.'),
    refuses: refuses(SupplierCode),
  },
  {
    name: 'a Stripe payment-method reference',
    valid: fc.constantFrom('a', 'Z', '0'),
    bad: fc.constantFrom('-', ' ', '_'),
    refuses: (text) =>
      !CreatePaymentInstructionRequest.safeParse({
        import_supplier: 'S',
        external_account_number: 'E',
        vendor: 'STRIPE',
        type: 'CARD',
        reference: `pm_${text}`,
      }).success,
  },
  {
    name: 'an Idempotency-Key header',
    valid: fc.constantFrom('k', ' ', '~'),
    bad: fc.constantFrom('\u0000', '\u00e9', '\n'),
    refuses: (text) => {
      try {
        parseIdempotencyKey(text);
        return false;
      } catch {
        return true;
      }
    },
  },
];

describe('no pattern is slow to refuse a long run of valid characters with one bad one', () => {
  it.each(FIELDS.map((f) => [f.name, f] as const))('%s', (_name, field) => {
    const hostile = fc.record({
      run: fc.integer({ min: 10_000, max: 400_000 }),
      unit: field.valid,
      bad: field.bad,
      // Where the bad character goes, as a share of the run: the end is the worst case for backtracking.
      at: fc.oneof(fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true })),
    });
    fc.assert(
      fc.property(hostile, ({ run, unit, bad, at }) => {
        const body = unit.repeat(Math.ceil(run / unit.length)).slice(0, run);
        const cut = Math.floor(body.length * at);
        const text = body.slice(0, cut) + bad + body.slice(cut);
        const started = performance.now();
        const refused = field.refuses(text);
        const elapsed = performance.now() - started;
        return refused && elapsed < BUDGET_MS;
      }),
      fuzzOptions(40),
    );
  });
});
