// Field checks that take shortcuts for speed, held to their plain definitions over random input: the
// decimal field's digit counts and the money echo (through decimal.js's exponent and toString instead
// of |d|'s integer part and toFixed), and the calendar-day check (digit by digit instead of a pattern
// and a Date).
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { DecimalField, formatMoney, isCalendarDay } from '../../shared/platform/fields';

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

/** A calendar day as a pattern and Date.UTC see it (which reads years 0–99 as 1900–1999). */
function plainCalendarDay(s: string): boolean {
  const m = s.length === 10 ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(s) : null;
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  return d !== undefined && d.toISOString().slice(0, 10) === s;
}

describe('calendar days', () => {
  const two = (min: number, max: number) => fc.integer({ min, max }).map((n) => String(n).padStart(2, '0'));
  const dateLike = fc
    .tuple(fc.integer({ min: 0, max: 9999 }), two(0, 13), two(0, 32))
    .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${m}-${d}`);

  it('accepts exactly the days the pattern and Date.UTC accept', () => {
    fc.assert(
      fc.property(dateLike, (s) => expect(isCalendarDay(s)).toBe(plainCalendarDay(s))),
      { numRuns: 20_000 },
    );
    for (const s of [
      '2024-02-29',
      '2023-02-29',
      '1900-02-29',
      '2000-02-29',
      '0099-12-31',
      '0100-01-01',
      '2024-12-31',
    ]) {
      expect(isCalendarDay(s)).toBe(plainCalendarDay(s));
    }
  });

  it('refuses anything that is not ten characters of digits and dashes in place', () => {
    const noise = fc.string({ unit: fc.constantFrom(...'0123456789-+ .aT٣'), minLength: 0, maxLength: 12 });
    fc.assert(
      fc.property(
        fc.oneof(
          noise,
          dateLike.map((s) => s.replace(/\d/, (c) => (c === '1' ? '١' : ' '))),
        ),
        (s) => expect(isCalendarDay(s)).toBe(plainCalendarDay(s)),
      ),
      { numRuns: 20_000 },
    );
  });
});
