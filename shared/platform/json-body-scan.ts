// What a JSON body must not hold before anything reads it, found in one pass over its bytes:
// - numbers that JSON.parse changes: `1e-400` becomes 0, `1e400` Infinity, `9007199254740993`
//   9007199254740992, `0.1000000000000000055511151231257827` 0.1. Node 20's JSON.parse gives a reviver
//   no source text, so the bytes are read instead; only a number token with an exponent or more than
//   15 characters is looked at more closely;
// - nesting deeper than any schema: schemas, echoes and JSON.stringify recurse, and a few thousand
//   levels overflow their stack. Counted here, where it costs nothing more than the brackets.
// Byte by byte outside strings, short strings too; long ones crossed with native indexOf (a pattern
// over the text cost more than JSON.parse itself).
import Decimal from 'decimal.js';

/** Every decimal of at most 15 significant digits survives the trip through a double (DBL_DIG). */
const SAFE_DIGITS = 15;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const UPPER_E = 0x45;
const LOWER_E = 0x65;

const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

export type UnreadableJson =
  /** A number token whose value is not the number written; `offset`: where it starts (bytes). */
  | { problem: 'lossy_number'; offset: number; text: string }
  /** The array or object that opens past `maxDepth` levels. */
  | { problem: 'too_deep'; offset: number };

const isDigit = (c: number) => c >= ZERO && c <= NINE;
const isNumberByte = (c: number) =>
  isDigit(c) || c === DOT || c === MINUS || c === PLUS || c === UPPER_E || c === LOWER_E;

/**
 * The first place of a JSON body, in document order, holding a number its parsed value changes or a
 * value nested more than `maxDepth` levels deep (the top-level value is level 0), or undefined.
 */
export function findUnreadableJson(body: Buffer, maxDepth: number): UnreadableJson | undefined {
  const n = body.length;
  let depth = 0;
  let i = 0;
  while (i < n) {
    const c = body[i]!;
    if (c === QUOTE) {
      i = stringEnd(body, i);
      continue;
    }
    if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (depth >= maxDepth) return { problem: 'too_deep', offset: i };
      depth++;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) depth--;
    if (c !== MINUS && !isDigit(c)) {
      i++;
      continue;
    }
    const start = i;
    let exponent = false;
    for (; i < n && isNumberByte(body[i]!); i++) exponent ||= body[i] === UPPER_E || body[i] === LOWER_E;
    // Fewer than 16 characters and no exponent: fewer than 16 digits, which a double keeps exactly.
    if (!exponent && i - start <= SAFE_DIGITS) continue;
    const text = body.toString('latin1', start, i);
    if (!isExact(text)) return { problem: 'lossy_number', offset: start, text };
  }
  return undefined;
}

/** Strings longer than this are crossed with native indexOf; shorter ones byte by byte (cheaper than a call). */
const SHORT_STRING = 64;

/** The offset just past the string opening at `start`: its closing quote is one no backslash escapes. */
function stringEnd(body: Buffer, start: number): number {
  const n = body.length;
  const near = Math.min(n, start + SHORT_STRING);
  let i = start + 1;
  for (; i < near; i++) {
    const c = body[i];
    if (c === QUOTE) return i + 1;
    if (c === BACKSLASH) i++;
  }
  for (;;) {
    const quote = body.indexOf(QUOTE, i);
    if (quote === -1) return n;
    let backslashes = 0;
    while (body[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    i = quote + 1;
  }
}

function isExact(token: string): boolean {
  const value = Number(token);
  if (!Number.isFinite(value)) return false;
  // The shortest decimal that reads back as the double (String(value): how every field reads a number),
  // against the decimal written. So 2^64, exact as a double, is refused too: it would be read as …552000.
  return new Decimal(token).eq(new Decimal(String(value)));
}

/**
 * The path (keys and indexes) of the value starting at `offset` of a well-formed JSON text. Runs only
 * when a refusal names the place, so a plain character walk is enough; bounded by the text's length.
 */
export function jsonPathAt(text: string, offset: number): (string | number)[] {
  const frames: { key: string | number | undefined; inObject: boolean; expectKey: boolean }[] = [];
  let i = 0;
  while (i < offset) {
    const c = text[i];
    const top = frames.at(-1);
    if (c === '"') {
      const end = textStringEnd(text, i);
      if (top?.inObject && top.expectKey) {
        top.key = JSON.parse(Buffer.from(text.slice(i, end), 'latin1').toString('utf8')) as string;
        top.expectKey = false;
      }
      i = end;
      continue;
    }
    if (c === '[') frames.push({ key: 0, inObject: false, expectKey: false });
    else if (c === '{') frames.push({ key: undefined, inObject: true, expectKey: true });
    else if (c === ']' || c === '}') frames.pop();
    else if (c === ',' && top) {
      if (top.inObject) top.expectKey = true;
      else top.key = (top.key as number) + 1;
    }
    i++;
  }
  return frames.map((f) => f.key ?? '');
}

/** The index just past the string that opens at `start` in a text. */
function textStringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}
