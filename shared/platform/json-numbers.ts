// JSON numbers that JSON.parse changes: `1e-400` becomes 0, `1e400` Infinity, `9007199254740993`
// 9007199254740992, `0.1000000000000000055511151231257827` 0.1. Node 20's JSON.parse gives a reviver
// no source text, so the raw body is scanned instead: one regex pass that skips strings and visits
// number tokens; only a token with an exponent or more than 15 digits is looked at more closely.
import Decimal from 'decimal.js';

/** A string (skipped whole, escapes included) or a number token (captured). Linear: no nested repeats. */
const TOKENS = /"[^"\\]*(?:\\.[^"\\]*)*"|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/g;

/** Every decimal of at most 15 significant digits survives the trip through a double (DBL_DIG). */
const SAFE_DIGITS = 15;

export interface LossyNumber {
  /** Where the token starts in the scanned text. */
  offset: number;
  text: string;
}

/**
 * The first number token of a JSON text whose parsed value is not the number written, or undefined.
 * `text` may be the body's bytes read as latin1: every character the scan stops at is ASCII.
 */
export function findLossyNumber(text: string): LossyNumber | undefined {
  TOKENS.lastIndex = 0;
  for (let m = TOKENS.exec(text); m !== null; m = TOKENS.exec(text)) {
    const token = m[1];
    if (token !== undefined && !isExact(token)) return { offset: m.index, text: token };
  }
  return undefined;
}

function isExact(token: string): boolean {
  // Most tokens are short plain decimals: fewer than 16 digits and no exponent parse exactly.
  if (token.length <= SAFE_DIGITS && !/[eE]/.test(token)) return true;
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
      const end = stringEnd(text, i);
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

/** The index just past the string that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}
