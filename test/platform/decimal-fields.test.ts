// The decimal field's digit counts and the money echo take shortcuts through decimal.js (the exponent
// instead of |d|'s integer part, toString instead of toFixed). These properties hold them to the plain
// definitions over random decimals, the far ends of the exponent included.
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { DecimalField, formatMoney } from '../../shared/platform/fields';

const digits = (min: number, max: number) =>
  fc.array(fc.constantFrom(...'0123456789'), { minLength: min, maxLength: max }).map((d) => d.join(''));

/** Decimal text as clients send it: sign, leading zeros, a point with or without digits on either side. */
const decimalText = fc
  .tuple(fc.boolean(), digits(0, 24), fc.option(digits(0, 14), { nil: undefined }))
  .filter(([, whole, fraction]) => whole.length > 0 || (fraction ?? '').length > 0)
  .map(
    ([negative, whole, fraction]) => `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}`,
  );

/** What formatMoney promises: at least two places and every submitted digit. */
const plainMoney = (d: Decimal) => d.toFixed(Math.max(2, d.decimalPlaces()));

/** The checks DecimalField makes, written with |d|'s integer part, in its order. */
function expectedCode(text: string, wholeDigits: number, fractionDigits: number): string | undefined {
  const d = new Decimal(text);
  const places = d.decimalPlaces();
  const integer = d.abs().trunc();
  const whole = integer.isZero() ? 0 : integer.toFixed(0).length;
  if (whole + places > wholeDigits + fractionDigits) return 'max_digits';
  if (places > fractionDigits) return 'max_decimal_places';
  if (whole > wholeDigits) return 'max_whole_digits';
  return undefined;
}

describe('decimal fields', () => {
  it('echoes money as toFixed with at least two places would, for any decimal text', () => {
    fc.assert(
      fc.property(decimalText, (text) => {
        const d = new Decimal(text);
        expect(formatMoney(d)).toBe(plainMoney(d));
      }),
      { numRuns: 5_000 },
    );
  });

  it('echoes values whose plain toString would switch to exponent notation', () => {
    for (const text of ['0.0000001', '-0.00000012', '0.000001', '1e21', '123456789012345678901234', '-0', '0.10']) {
      const d = new Decimal(text);
      expect(formatMoney(d)).toBe(plainMoney(d));
    }
    fc.assert(
      fc.property(fc.integer({ min: -30, max: 30 }), digits(1, 20), fc.boolean(), (exponent, mantissa, negative) => {
        const d = new Decimal(`${negative ? '-' : ''}${mantissa}e${exponent}`);
        expect(formatMoney(d)).toBe(plainMoney(d));
      }),
      { numRuns: 2_000 },
    );
  });

  it('counts whole and fractional digits as |d| and its integer part do', () => {
    const fields = [
      [10, 2],
      [4, 6],
      [18, 4],
    ] as const;
    fc.assert(
      fc.property(decimalText, fc.constantFrom(...fields), (text, [wholeDigits, fractionDigits]) => {
        const parsed = DecimalField(wholeDigits, fractionDigits).safeParse(text);
        const code = parsed.success
          ? undefined
          : (parsed.error.issues[0] as { params?: { code?: string } }).params?.code;
        expect(code).toBe(expectedCode(text, wholeDigits, fractionDigits));
        if (parsed.success) expect(parsed.data.eq(new Decimal(text))).toBe(true);
      }),
      { numRuns: 5_000 },
    );
  });
});
