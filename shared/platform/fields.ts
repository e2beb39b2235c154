// Field schemas shared by every payload: account reference, dates, datetimes, decimals, document
// paths. Each failure carries a stable code (see shared/platform/validation.ts for the generic ones).
import Decimal from 'decimal.js';
import { z } from 'zod';

const fail = (ctx: z.core.$RefinementCtx, code: string, message: string) =>
  ctx.addIssue({ code: 'custom', message, params: { code } });

export const AccountReference = {
  import_supplier: z.string().min(1).max(128),
  external_account_number: z.string().min(1).max(128),
};

/** `YYYY-MM-DD`, a real calendar day. Output: the same string. */
export const IsoDate = z.string().superRefine((s, ctx) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : undefined;
  if (!d || d.toISOString().slice(0, 10) !== s) {
    fail(ctx, 'invalid', 'Date has wrong format or does not exist. Use YYYY-MM-DD.');
  }
});

const DATETIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d{1,6})?(Z|[+-]\d{2}:\d{2})$/;

/** ISO 8601 datetime with seconds, optional fraction, and `Z` or an offset. Output: a Date. */
export const IsoDateTime = z.string().transform((s, ctx) => {
  const m = DATETIME.exec(s);
  const date = m ? new Date(s) : undefined;
  // new Date() rolls 2026-02-30 over to March: compare the calendar day written with the one parsed.
  const local = m && date && !Number.isNaN(date.getTime()) ? sameWrittenDay(m, date) : false;
  if (!local || !date) {
    fail(ctx, 'invalid', 'Datetime has wrong format or does not exist. Use YYYY-MM-DDTHH:MM:SSZ.');
    return z.NEVER;
  }
  return date;
});

function sameWrittenDay(m: RegExpExecArray, date: Date): boolean {
  const [, y, mo, d, h, mi, sec, , zone] = m;
  if (Number(h) > 23 || Number(mi) > 59 || Number(sec) > 59) return false;
  const offsetMinutes =
    zone === 'Z' ? 0 : (zone!.startsWith('-') ? -1 : 1) * (Number(zone!.slice(1, 3)) * 60 + Number(zone!.slice(4, 6)));
  const wall = new Date(date.getTime() + offsetMinutes * 60_000);
  return wall.getUTCFullYear() === Number(y) && wall.getUTCMonth() + 1 === Number(mo) && wall.getUTCDate() === Number(d);
}

/** A Date as the spec writes datetimes: UTC, `Z`, seconds; milliseconds only when there are some. */
export function formatDateTime(date: Date): string {
  const iso = date.toISOString();
  return iso.endsWith('.000Z') ? `${iso.slice(0, 19)}Z` : iso;
}

/**
 * A decimal sent as a JSON number or a decimal string, at most `wholeDigits` before the point and
 * `fractionDigits` after it. Output: a Decimal holding exactly the submitted digits.
 */
/** Every decimal of at most 15 significant digits survives the trip through a double (DBL_DIG). */
const MAX_EXACT_JSON_NUMBER_DIGITS = 15;

export function DecimalField(wholeDigits: number, fractionDigits: number) {
  return z.union([z.number(), z.string()]).transform((value, ctx) => {
    let d: Decimal;
    try {
      if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not finite');
      if (typeof value === 'string' && !/^-?(\d+\.?\d*|\.\d+)$/.test(value.trim())) throw new Error('bad');
      d = new Decimal(typeof value === 'number' ? String(value) : value.trim());
    } catch {
      fail(ctx, 'invalid', 'A valid number is required.');
      return z.NEVER;
    }
    const places = d.decimalPlaces();
    const whole = d.abs().trunc().isZero() ? 0 : d.abs().trunc().toFixed(0).length;
    if (whole + places > wholeDigits + fractionDigits) {
      fail(ctx, 'max_digits', `Ensure that there are no more than ${wholeDigits + fractionDigits} digits in total.`);
    } else if (places > fractionDigits) {
      fail(ctx, 'max_decimal_places', `Ensure that there are no more than ${fractionDigits} decimal places.`);
    } else if (whole > wholeDigits) {
      fail(ctx, 'max_whole_digits', `Ensure that there are no more than ${wholeDigits} digits before the decimal point.`);
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
  return d.toFixed(Math.max(2, d.decimalPlaces()));
}

// Control characters are exactly what this pattern exists to find.
// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

/** A path relative to the supplier's document root in object storage. */
export const DocumentPath = z.string().superRefine((p, ctx) => {
  const segments = p.split('/');
  const bad =
    p.length === 0 ||
    p.length > 1024 ||
    p.startsWith('/') ||
    p.includes('\\') ||
    CONTROL_CHARS.test(p) ||
    segments.some((s) => s === '' || s === '.' || s === '..');
  if (bad) {
    fail(
      ctx,
      'invalid_document_path',
      'Document paths are relative: no leading "/", no "." , ".." or empty segments, no backslashes or control characters, at most 1024 characters.',
    );
  }
});

/** `<bucket>/<supplier document root>/<path>`: where the document lives in object storage. */
export function resolveDocumentLocation(bucket: string, documentRoot: string, path: string): string {
  return [bucket, documentRoot.replace(/^\/+|\/+$/g, ''), path].filter((s) => s !== '').join('/');
}
