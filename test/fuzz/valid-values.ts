// Generators of values the spec accepts, for the round-trip properties: whatever they produce must
// come back from the database exactly as sent.
import fc from 'fast-check';

export { formatDateTime } from '../../shared/platform/fields';

/**
 * Text of any script, emoji and combining marks included: well-formed UTF-16 (no lone surrogates) and
 * no NUL, the two things PostgreSQL text cannot hold.
 */
export const wellFormedText = (minLength: number, maxLength: number) =>
  fc
    .string({
      unit: fc.oneof(fc.constant('\n'), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 })),
      minLength,
      maxLength,
    })
    .filter((s) => !s.includes('\u0000') && s.length >= minLength);

/** Text the service stores: not spaces only (that is `blank`). */
export const nonBlankText = (minLength: number, maxLength: number) =>
  wellFormedText(minLength, maxLength).filter((s) => s.trim() !== '');

/** An identifier the service stores: no whitespace at either end (refused, never trimmed). */
export const identifierText = (minLength: number, maxLength: number) =>
  wellFormedText(minLength, maxLength).filter((s) => s !== '' && s === s.trim());

const segment = fc.stringMatching(/^[A-Za-z0-9_][A-Za-z0-9 ._()-]{0,15}$/).filter((s) => s !== '.' && s !== '..');

export const documentPath = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));

const day = fc.date({
  min: new Date('1990-01-01T00:00:00Z'),
  max: new Date('2030-12-31T00:00:00Z'),
  noInvalidDate: true,
});

/** `YYYY-MM-DDTHH:MM:SSZ`, the spec's datetime. */
export const isoDateTime = day.map((d) => `${d.toISOString().slice(0, 19)}Z`);

/** `YYYY-MM-DD` between `from` and `to` (inclusive). */
export const isoDate = (from = '1990-01-01', to = '2030-12-31') =>
  fc
    .date({ min: new Date(`${from}T00:00:00Z`), max: new Date(`${to}T00:00:00Z`), noInvalidDate: true })
    .map((d) => d.toISOString().slice(0, 10));

/**
 * A decimal with at most `whole` digits before the point and `places` after, as a string ("-12.50")
 * or, when it fits a double exactly (at most 15 significant digits), as a JSON number.
 */
export const decimal = (whole: number, places: number, opts: { positive?: boolean } = {}) =>
  fc
    .record({
      negative: opts.positive ? fc.constant(false) : fc.boolean(),
      int: fc.stringMatching(new RegExp(`^(0|[1-9][0-9]{0,${whole - 1}})$`)),
      frac: fc.stringMatching(new RegExp(`^[0-9]{0,${places}}$`)),
    })
    .filter(({ int, frac }) => !opts.positive || /[1-9]/.test(int + frac))
    .map(
      ({ negative, int, frac }) => `${negative && /[1-9]/.test(int + frac) ? '-' : ''}${int}${frac ? `.${frac}` : ''}`,
    );
