// Field schemas shared by every payload: account reference, dates, datetimes, decimals, document
// paths. Each failure carries a stable code (see shared/platform/validation.ts for the generic ones).
import Decimal from 'decimal.js';
import { z } from 'zod';

const fail = (ctx: z.core.$RefinementCtx, code: string, message: string) =>
  ctx.addIssue({ code: 'custom', message, params: { code } });

// Unicode White_Space plus the BOM: what String.prototype.trim removes.
const EDGE_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0, 0x1680, 0x2000, 0x2001, 0x2002, 0x2003, 0x2004, 0x2005, 0x2006, 0x2007,
  0x2008, 0x2009, 0x200a, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff,
]);
const isSpaceAt = (s: string, i: number) => EDGE_SPACE.has(s.charCodeAt(i));

/** Text of spaces only is as empty as "": `blank`. ("" itself is reported once, by min(1).) */
function refuseSpacesOnly(s: string, ctx: z.core.$RefinementCtx): boolean {
  // Only text that starts with a space can be spaces only: the trim is rarely paid for.
  if (s.length === 0 || !isSpaceAt(s, 0) || s.trim() !== '') return false;
  fail(ctx, 'blank', 'This field may not be blank.');
  return true;
}

/**
 * Free text (a note's body, a transaction's note): at least one character that is not a space.
 * Spaces around the text are kept as sent.
 */
export function TextField(maxLength?: number) {
  const base = z.string().min(1);
  // abort: text over the bound gets that one error, and the check below runs on bounded text only.
  return (maxLength === undefined ? base : base.max(maxLength, { abort: true })).superRefine((s, ctx) => {
    refuseSpacesOnly(s, ctx);
  });
}

/**
 * An identifier the service stores or looks up (statement_id, transaction_id, external ids, codes,
 * account numbers): 1 to `maxLength` characters, no space at either end. " pad-x" is refused, never
 * trimmed into "pad-x": silently changing a client's key would make two of its records one. Spaces
 * only read `blank`, as for text.
 */
export function IdentifierField(maxLength: number) {
  return z
    .string()
    .min(1)
    .max(maxLength, { abort: true })
    .superRefine((s, ctx) => {
      if (s.length === 0 || refuseSpacesOnly(s, ctx)) return;
      if (isSpaceAt(s, 0) || isSpaceAt(s, s.length - 1)) {
        fail(ctx, 'invalid', 'Identifiers may not start or end with whitespace; send the value without it.');
      }
    });
}

export const AccountReference = {
  import_supplier: IdentifierField(128),
  external_account_number: IdentifierField(128),
};

/**
 * The body flag every write takes (an addition to the contract): `true` checks and answers as the real
 * call would and writes nothing.
 */
export const DryRun = z
  .boolean()
  .default(false)
  .describe(
    'Addition to the contract: `true` checks everything and answers as the real call would, and writes nothing.',
  );

/**
 * The account reference of notes and transactions, where the contract keeps the deprecated
 * `account_number` alias: either name may carry the number (see checkAccountNumberAlias).
 */
export const AliasedAccountReference = {
  import_supplier: AccountReference.import_supplier,
  external_account_number: AccountReference.external_account_number.optional(),
  account_number: AccountReference.external_account_number.optional(),
};

/**
 * One of the two names is required; both may be sent only with the same number (a client half-way
 * through renaming sends both). Runs even when other fields failed, so the one 400 names every fault.
 */
export function checkAccountNumberAlias(value: unknown, ctx: z.core.$RefinementCtx): void {
  const { external_account_number: external, account_number: alias } = value as Record<string, unknown>;
  if (external === undefined && alias === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['external_account_number'],
      message: 'Either account_number or external_account_number must be provided.',
      params: { code: 'required' },
    });
  } else if (external !== undefined && alias !== undefined && external !== alias) {
    ctx.addIssue({
      code: 'custom',
      path: ['account_number'],
      message:
        'account_number is the deprecated name of external_account_number: send one, or both with the same value.',
      params: { code: 'mutually_exclusive_field_required' },
    });
  }
}

/** Runs checkAccountNumberAlias only on an object body (a non-object already failed as a whole). */
export const ACCOUNT_ALIAS_WHEN = {
  when: (payload: { value: unknown }) =>
    typeof payload.value === 'object' && payload.value !== null && !Array.isArray(payload.value),
};

/** `YYYY-MM-DD`, a real calendar day. Output: the same string. */
export const IsoDate = z.string().superRefine((s, ctx) => {
  if (!isCalendarDay(s)) fail(ctx, 'invalid', 'Date has wrong format or does not exist. Use YYYY-MM-DD.');
});

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const DASH = 45;
const ZERO = 48;

/** The ASCII digit at `i` as a number, else NaN. (A module function: as a closure it ran 20× slower.) */
function digitAt(s: string, i: number): number {
  const digit = s.charCodeAt(i) - ZERO;
  return digit >= 0 && digit <= 9 ? digit : Number.NaN;
}

/**
 * `YYYY-MM-DD` naming a day of the Gregorian calendar, from year 0100 on (Date.UTC reads years 0–99
 * as 1900–1999, so the service has never taken them). Read digit by digit: every transaction has a
 * date or two, and a pattern plus a Date per date cost more than the rest of its checks.
 */
export function isCalendarDay(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== DASH || s.charCodeAt(7) !== DASH) return false;
  const year = digitAt(s, 0) * 1000 + digitAt(s, 1) * 100 + digitAt(s, 2) * 10 + digitAt(s, 3);
  const month = digitAt(s, 5) * 10 + digitAt(s, 6);
  const day = digitAt(s, 8) * 10 + digitAt(s, 9);
  // A non-digit made one of them NaN, and every comparison with NaN is false.
  if (!(year >= 100 && month >= 1 && month <= 12 && day >= 1)) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= (month === 2 && leap ? 29 : DAYS_IN_MONTH[month - 1]!);
}

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;
/** The longest datetime DATETIME matches: `2026-11-25T09:30:00.123456+01:00`. */
const MAX_DATETIME_TEXT = 32;

/**
 * The instants a datetime may name: the days isCalendarDay takes (years 0100 to 9999), in UTC. The
 * same lower bound as dates, and an upper one so that every stored datetime is echoed in the spec's
 * `YYYY-MM-DDTHH:MM:SSZ` (toISOString writes years past 9999 as `+010000-…`).
 */
const EARLIEST_DATETIME = Date.parse('0100-01-01T00:00:00Z');
const LATEST_DATETIME = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * ISO 8601 datetime with seconds, optional fraction, and `Z` or an offset, from 0100-01-01T00:00:00Z
 * to 9999-12-31T23:59:59Z. Output: a Date.
 */
export const IsoDateTime = z.string().transform((s, ctx) => {
  const m = s.length <= MAX_DATETIME_TEXT ? DATETIME.exec(s) : null;
  const date = m ? new Date(s) : undefined;
  const time = date?.getTime() ?? Number.NaN;
  // new Date() rolls 2026-02-30 over to March: compare the calendar day written with the one parsed.
  const local = m && date && time >= EARLIEST_DATETIME && time <= LATEST_DATETIME ? sameWrittenDay(m, date) : false;
  if (!local || !date) {
    fail(ctx, 'invalid', 'Datetime has wrong format or does not exist (years 0100 to 9999). Use YYYY-MM-DDTHH:MM:SSZ.');
    return z.NEVER;
  }
  return date;
});

/**
 * The whole second `date` falls in. Note datetimes are stored and echoed at whole seconds, so every
 * echo is in the spec's format and a client that sends an echo back finds the same note.
 */
export function wholeSecond(date: Date): Date {
  return new Date(Math.floor(date.getTime() / 1000) * 1000);
}

function sameWrittenDay(m: RegExpExecArray, date: Date): boolean {
  const [, y, mo, d, h, mi, sec, , zone] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return false;
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6)));
  const wall = new Date(date.getTime() + offsetMinutes * 60_000);
  return (
    wall.getUTCFullYear() === Number(y) && wall.getUTCMonth() + 1 === Number(mo) && wall.getUTCDate() === Number(d)
  );
}

/** A Date as the spec writes datetimes: UTC, `Z`, seconds; milliseconds only when there are some. */
export function formatDateTime(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/** Every decimal of at most 15 significant digits survives the trip through a double (DBL_DIG). */
const MAX_EXACT_JSON_NUMBER_DIGITS = 15;

/**
 * Longest decimal string looked at: the widest field holds 20 digits, plus sign, point, a few leading
 * zeros and surrounding spaces. Longer text is refused before the pattern runs.
 */
const MAX_DECIMAL_TEXT = 64;

// One way to match any input (digits, then an optional point with digits): no backtracking between
// two runs of \d, which made the former pattern quadratic in the length of a refused string.
const DECIMAL_TEXT = /^-?(?:\d+(?:\.\d*)?|\.\d+)$/;

/**
 * A decimal sent as a JSON number or a decimal string, at most `wholeDigits` before the point and
 * `fractionDigits` after it. Output: a Decimal holding exactly the submitted digits.
 */
export function DecimalField(wholeDigits: number, fractionDigits: number) {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    if (typeof value === 'string' && value.length > MAX_DECIMAL_TEXT) {
      fail(ctx, 'max_length', `Ensure this field has no more than ${MAX_DECIMAL_TEXT} characters.`);
      return z.NEVER;
    }
    let d: Decimal;
    try {
      if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not finite');
      if (typeof value === 'string' && !DECIMAL_TEXT.test(value.trim())) throw new Error('bad');
      d = new Decimal(typeof value === 'number' ? String(value) : value.trim());
    } catch {
      fail(ctx, 'invalid', 'A valid number is required.');
      return z.NEVER;
    }
    const places = d.decimalPlaces();
    // Digits before the point: the exponent says it without building |d| and its integer part.
    const whole = d.isZero() ? 0 : Math.max(0, d.e + 1);
    if (whole + places > wholeDigits + fractionDigits) {
      fail(ctx, 'max_digits', `Ensure that there are no more than ${wholeDigits + fractionDigits} digits in total.`);
    } else if (places > fractionDigits) {
      fail(ctx, 'max_decimal_places', `Ensure that there are no more than ${fractionDigits} decimal places.`);
    } else if (whole > wholeDigits) {
      fail(
        ctx,
        'max_whole_digits',
        `Ensure that there are no more than ${wholeDigits} digits before the decimal point.`,
      );
    } else if (typeof value === 'number' && d.sd() > MAX_EXACT_JSON_NUMBER_DIGITS) {
      // The body parser already rounded this number to a double: its last digits may not be the ones sent.
      fail(
        ctx,
        'imprecise_number',
        `A JSON number keeps at most ${MAX_EXACT_JSON_NUMBER_DIGITS} significant digits exactly; send this one as a decimal string.`,
      );
    } else {
      return d;
    }
    return z.NEVER;
  });
}

/** Money as the responses echo it: a string with at least two decimal places, no digit rounded away. */
export function formatMoney(d: Decimal): string {
  // toString writes every significant digit, and plain notation unless the exponent is far from zero;
  // padded to two places it is toFixed(max(2, places)) without toFixed's rounding pass.
  const s = d.toString();
  if (s.includes('e')) return d.toFixed(Math.max(2, d.decimalPlaces()));
  const point = s.indexOf('.');
  if (point === -1) return `${s}.00`;
  return s.length - point === 2 ? `${s}0` : s;
}

// Control characters are exactly what this pattern exists to find.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;
const MAX_DOCUMENT_PATH = 1024;

// Characters that read as a full stop: what NFKC leaves alone (ideographic and Arabic full stops,
// middle dots, dot operators, Syriac and Lisu dots). NFKC already folds the full-width, small and
// leader dots (U+FF0E, U+FE52, U+2024, U+2025) into ".".
const DOT_LOOK_ALIKES =
  /[.\u00b7\u0387\u06d4\u0701\u0702\u2027\u2219\u22c5\u2e31\u2e33\u3002\u30fb\ua4f8\ua60e\uff61\uff65]/gu;
// Invisible format characters and spaces a file system or a reader may drop (Windows strips trailing
// spaces and dots): ". ." or ".\u200b." must not survive as a dot segment.
const IGNORABLE = /[\p{Cf}\p{Zs}]/gu;
// Bounded: a path is at most 1024 characters, and each round removes at least two of them.
const MAX_PERCENT_DECODING_ROUNDS = 4;

/**
 * The segment as a lenient server might read it: percent-decoded (repeatedly) and NFKC-folded.
 * Undefined when a %-sequence is not UTF-8: overlong forms such as `%c0%ae` decode to "." in some
 * old decoders.
 */
function decodedSegment(segment: string): string | undefined {
  let text = segment;
  for (let round = 0; round < MAX_PERCENT_DECODING_ROUNDS && /%[0-9a-f]{2}/i.test(text); round++) {
    try {
      text = decodeURIComponent(text);
    } catch {
      return undefined;
    }
  }
  return text.normalize('NFKC');
}

/**
 * True for a segment that some reader could take for "." or "..": made only of dots or look-alikes
 * (with invisible characters and spaces removed), or hiding a separator or control character behind
 * percent-encoding ("..%2f", "%00"), or percent-encoding that is not UTF-8.
 */
function isDeceptiveSegment(segment: string): boolean {
  const decoded = decodedSegment(segment);
  if (decoded === undefined || /[/\\]/.test(decoded) || CONTROL_CHARS.test(decoded)) return true;
  const visible = decoded.replace(IGNORABLE, '');
  return visible === '' || visible.replace(DOT_LOOK_ALIKES, '') === '';
}

/** A path relative to the supplier's document root in object storage. */
export const DocumentPath = z.string().superRefine((p, ctx) => {
  // The length is checked first: every later test runs on at most MAX_DOCUMENT_PATH characters.
  const bad =
    p.length === 0 ||
    p.length > MAX_DOCUMENT_PATH ||
    p.startsWith('/') ||
    p.includes('\\') ||
    CONTROL_CHARS.test(p) ||
    p.split('/').some(isDeceptiveSegment);
  if (bad) {
    fail(
      ctx,
      'invalid_document_path',
      'Document paths are relative: no leading "/", no empty segments, no segment that is or decodes to dots only ' +
        '("..", "%2e%2e", full-width or other look-alike dots), no backslashes, encoded separators or control characters, at most 1024 characters.',
    );
  }
});

/** resolveDocumentLocation in SQL, over three text expressions (for writes that read the root themselves). */
export function documentLocationSql(bucket: string, documentRoot: string, path: string): string {
  return `concat_ws('/', nullif(${bucket}, ''), nullif(btrim(${documentRoot}, '/'), ''), nullif(${path}, ''))`;
}

/** `<bucket>/<supplier document root>/<path>`: where the document lives in object storage. */
export function resolveDocumentLocation(bucket: string, documentRoot: string, path: string): string {
  return [bucket, documentRoot.replace(/^\/+|\/+$/g, ''), path].filter((s) => s !== '').join('/');
}
