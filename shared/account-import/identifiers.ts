// Checks on the UK identifiers an account carries: MPAN cores, MPRNs, postcodes, e-mail addresses and
// phone numbers. Pure functions; every caller bounds the string's length before calling, and none of
// them runs a pattern that can backtrack.

/** Weights of the MPAN core's first twelve digits (the industry's list of primes, 11 left out). */
const MPAN_WEIGHTS = [3, 5, 7, 13, 17, 19, 23, 29, 31, 37, 41, 43];

const isDigits = (s: string) => /^\d+$/.test(s);

/**
 * An electricity meter point's MPAN core: 13 digits whose last is the check digit, the weighted sum
 * of the first twelve modulo 11, then modulo 10.
 */
export function isValidMpanCore(s: string): boolean {
  if (s.length !== 13 || !isDigits(s)) return false;
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(s[i]) * MPAN_WEIGHTS[i]!;
  return (sum % 11) % 10 === Number(s[12]);
}

/**
 * A gas meter point's MPRN: 6 to 10 digits whose last two are the check number, the sum of the other
 * digits each multiplied by its place counted from the right of them (the last one weighs 1), modulo 11.
 */
export function isValidMprn(s: string): boolean {
  if (s.length < 6 || s.length > 10 || !isDigits(s)) return false;
  const body = s.slice(0, -2);
  let sum = 0;
  for (let i = 0; i < body.length; i++) sum += Number(body[i]) * (body.length - i);
  return sum % 11 === Number(s.slice(-2));
}

// Outward code (area, district, optional sub-district letter) and inward code (sector digit, unit
// letters), with or without the space; GIR 0AA is the one historic exception.
const POSTCODE = /^[A-Z]{1,2}\d[A-Z\d]? ?\d[A-Z]{2}$/;

/** A UK postcode in any letter case (at most 8 characters with the space). */
export function isUkPostcode(s: string): boolean {
  if (s.length > 8) return false;
  const upper = s.toUpperCase();
  return upper === 'GIR 0AA' || upper === 'GIR0AA' || POSTCODE.test(upper);
}

/**
 * An e-mail address as a mail server would take it: one `@`, a local part of 1–64 characters and a
 * domain of dot-separated labels (letters, digits, hyphens; a label neither starts nor ends with a
 * hyphen; at least two labels). No spaces or control characters anywhere.
 */
export function isEmailAddress(s: string): boolean {
  if (s.length > 254) return false;
  const at = s.indexOf('@');
  if (at < 1 || at !== s.lastIndexOf('@') || at > 64) return false;
  const local = s.slice(0, at);
  if (!/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local) || local.startsWith('.') || local.endsWith('.')) {
    return false;
  }
  if (local.includes('..')) return false;
  const labels = s.slice(at + 1).split('.');
  if (labels.length < 2) return false;
  return labels.every(
    (l) => l.length >= 1 && l.length <= 63 && /^[A-Za-z0-9-]+$/.test(l) && !l.startsWith('-') && !l.endsWith('-'),
  );
}

/**
 * A UK phone number: 0 then 9 or 10 digits, or +44 then the same without its 0; spaces, hyphens and
 * one pair of brackets around the area code may separate the digits.
 */
export function isUkPhoneNumber(s: string): boolean {
  if (s.length > 32) return false;
  const compact = s.replace(/[\s()-]/g, '');
  let national: string;
  if (compact.startsWith('+44')) national = '0' + compact.slice(3);
  else if (compact.startsWith('0044')) national = '0' + compact.slice(4);
  else national = compact;
  return (
    national.startsWith('0') &&
    !national.startsWith('00') &&
    isDigits(national) &&
    (national.length === 10 || national.length === 11)
  );
}
