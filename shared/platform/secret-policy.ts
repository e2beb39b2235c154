// What a signing secret must be outside development: set, not a value anyone can read in this
// repository (defaults, compose fallbacks, README examples, test fixtures), and at least 32 bytes of
// entropy. Entropy is estimated from the value alone, conservatively: length × bits per character of
// the smallest usual alphabet the value fits, and a value using far fewer distinct characters than a
// random one of that length would (a repeated word, "aaaa…") is refused whatever its length.

const MIN_SECRET_BITS = 256;
const HOW_TO_MAKE_A_SECRET = 'make one with `openssl rand -base64 48`';

/**
 * Every secret value ever written in this repository, current or past. Anyone can read them, so none
 * may sign anything real. test/platform/secret-policy.test.ts fails when the repository gains another.
 */
export const PUBLISHED_SECRETS: readonly string[] = [
  'dev-only-token-secret-do-not-use-in-production',
  'dev-only-session-secret-do-not-use-in-production',
  'change-me-to-a-long-random-secret-of-32-chars',
  'test-secret-that-is-long-enough-for-hs256-keys',
];

// Smallest first: a value is credited with the bits per character of the first alphabet it fits.
const ALPHABETS: readonly (readonly [RegExp, number])[] = [
  [/^[0-9a-f]*$/, 16],
  [/^[0-9A-F]*$/, 16],
  [/^[0-9a-z]*$/, 36],
  [/^[0-9A-Z]*$/, 36],
  [/^[0-9A-Za-z]*$/, 62],
  [/^[0-9A-Za-z+/=_-]*$/, 64],
  [/^[\x20-\x7e]*$/, 95],
];
// Anything outside printable ASCII is credited as if it were printable ASCII: no better guess.
const FALLBACK_ALPHABET = 95;
// Env values are short; past this the estimate would only cost time, and such a value is refused.
const MAX_SECRET_LENGTH = 4096;

function alphabetSize(value: string): number {
  return ALPHABETS.find(([pattern]) => pattern.test(value))?.[1] ?? FALLBACK_ALPHABET;
}

/** Estimated entropy in bits; 0 when the value repeats itself too much to be random. */
export function estimateEntropyBits(value: string): number {
  if (value.length === 0 || value.length > MAX_SECRET_LENGTH) return 0;
  const n = value.length;
  const size = alphabetSize(value);
  // A random value of n characters over `size` symbols shows size·(1 − e^(−n/size)) distinct ones on
  // average; half of that is far below what chance gives and far above what a repeated word shows.
  const expectedDistinct = size * (1 - Math.exp(-n / size));
  if (new Set(value).size < expectedDistinct / 2) return 0;
  return Math.floor(n * Math.log2(size));
}

/** Why `value` may not be `name` outside development, or undefined when it may. */
export function secretProblem(name: string, value: string | undefined): string | undefined {
  if (value === undefined || value === '') return `${name} is required outside development: ${HOW_TO_MAKE_A_SECRET}`;
  if (PUBLISHED_SECRETS.includes(value)) {
    return `${name} is a value published in the service's repository and signs nothing safely: ${HOW_TO_MAKE_A_SECRET}`;
  }
  if (estimateEntropyBits(value) < MIN_SECRET_BITS) {
    return `${name} has less than 32 bytes of entropy (too short or too repetitive): ${HOW_TO_MAKE_A_SECRET}`;
  }
  return undefined;
}
