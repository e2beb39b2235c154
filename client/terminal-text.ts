// Text from outside (the service's answers, the input file) reaches a terminal through what the client
// prints and through result files people `cat`. A hostile or broken server could otherwise move the
// cursor, rewrite earlier lines, retitle the window or hide text (ESC sequences, C1 controls such as
// CSI U+009B, carriage returns, bidirectional overrides). So everything the client writes to stdout and
// stderr goes through `writeOut`/`writeErr`, which drop such characters, and every JSON line it writes
// escapes the ones JSON.stringify leaves raw.

/* eslint-disable no-control-regex -- matching control characters is this file's whole purpose */
/** C0 but newline and tab, DEL, C1, and the Unicode bidirectional controls. */
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** The same plus newline and tab: for a fragment embedded in one line of our own. */
const UNPRINTABLE_IN_LINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;
/** What JSON.stringify leaves raw among those (it escapes C0 itself), plus the JS line separators. */
const RAW_IN_JSON = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
/* eslint-enable no-control-regex */

/** Text fit for a terminal: control characters removed, newlines and tabs kept. */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, '');
}

/**
 * A fragment of outside text for one line of a message: controls (newlines included, so it cannot
 * forge a line of ours) become a space, and it is cut to `max` characters.
 */
export function oneLine(text: string, max = 200): string {
  const flat = text.slice(0, max * 2).replace(UNPRINTABLE_IN_LINE, ' ');
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** One NDJSON line whose every character is printable as it stands; it parses back to the same value. */
export function jsonLine(value: unknown): string {
  const escape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;
  return JSON.stringify(value).replace(RAW_IN_JSON, escape) + '\n';
}

export const writeOut = (text: string): void => void process.stdout.write(printable(text));
export const writeErr = (text: string): void => void process.stderr.write(printable(text));
