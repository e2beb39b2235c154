// What makes two lines the same item, for the kinds that name their items: an account by its
// external_account_number, a transaction by its transaction_id on one account, a statement by its
// statement_id, a note by its external_id, a payment instruction by its reference. The sign-off pack
// uses it to see that a failed item succeeded later (from a fix file, at another line), and send and
// validate to catch an item repeated in one run before anything is sent.
import { createHash } from 'node:crypto';
import type { InputEntry } from './input-reader';
import type { RunKind } from './item-kinds';
import { KeySet, MAX_KEYS } from './key-set';
import { writeErr } from './terminal-text';

/** The field naming a kind's item within its account (for accounts, the account's own number). */
const KEY_FIELDS: Record<RunKind, readonly string[]> = {
  accounts: ['external_account_number'],
  transactions: ['transaction_id'],
  statements: ['statement_id'],
  notes: ['external_id'],
  'payment-instructions': ['reference', 'instruction_reference'],
};

/** An item key's own field is text or an integer; anything longer than this is no key of the service's. */
const MAX_KEY_CHARS = 256;

function keyValue(item: Record<string, unknown>, kind: RunKind): string | undefined {
  for (const field of KEY_FIELDS[kind]) {
    const v = item[field];
    if (typeof v === 'string' && v !== '' && v.length <= MAX_KEY_CHARS) return `${field}=${v}`;
    if (typeof v === 'number' && Number.isSafeInteger(v)) return `${field}=${v}`;
  }
  return undefined;
}

/** The field a kind's duplicates are found on, for messages ("transaction_id T-1"). */
function keyDescription(kind: RunKind, entry: InputEntry): string | undefined {
  if (!entry.item || !entry.account) return undefined;
  return keyValue(entry.item, kind)?.replace('=', ' ');
}

const digestBytes = (text: string) => createHash('sha256').update(text).digest();
const digest = (text: string) => digestBytes(text).toString('base64url').slice(0, 32);

function keyText(kind: RunKind, entry: InputEntry): string | undefined {
  if (!entry.item || !entry.account) return undefined;
  const { import_supplier: supplier, external_account_number: account } = entry.account;
  const key = keyValue(entry.item, kind);
  return key === undefined ? undefined : `${kind}\0${supplier}\0${account}\0${key}`;
}

/**
 * The item's key within its supplier, as a fixed-size digest (undefined when the line names no item:
 * a note without an external_id, a line that did not parse). Account fields are bounded by the reader.
 */
function itemKey(kind: RunKind, entry: InputEntry): string | undefined {
  const text = keyText(kind, entry);
  return text === undefined ? undefined : digest(text);
}

/** The code of a line whose item an earlier line of the same run already holds. */
const DUPLICATE_CODE = 'duplicate_in_run';

/**
 * The entries as read, each line repeating an earlier line's item key turned into a failure before
 * sending (`duplicate_in_run`, naming both lines): only the first is sent. Every line is seen, final
 * ones included, so a resumed run finds the same repeats. `onFull` is called once if the run holds
 * more keys than KeySet keeps; later repeats then go unnoticed here (the service's own checks remain).
 */
export async function* markRepeats(
  kind: RunKind,
  entries: AsyncIterable<InputEntry>,
  onFull: () => void,
  seen = new KeySet(),
): AsyncIterable<InputEntry> {
  let warned = false;
  for await (const entry of entries) {
    const text = entry.problem ? undefined : keyText(kind, entry);
    if (text === undefined) {
      yield entry;
      continue;
    }
    const first = seen.firstLine(digestBytes(text), entry.line);
    if (first === undefined && seen.full && !warned) {
      warned = true;
      onFull();
    }
    if (first === undefined) yield entry;
    else yield { ...entry, problem: repeated(kind, entry, first) };
  }
}

function repeated(kind: RunKind, entry: InputEntry, first: number) {
  const what = keyDescription(kind, entry)!;
  const attr = what.split(' ')[0]!;
  // An account's own number needs no "on account".
  const where = attr === 'external_account_number' ? '' : ` on account ${entry.account!.external_account_number}`;
  return {
    code: DUPLICATE_CODE,
    attr,
    detail: `Line ${entry.line} repeats ${what}${where} of line ${first}: only line ${first} is sent.`,
  };
}

/**
 * An item's identity across runs: its key when it has one, else the line's whole content (a note
 * without an external_id is the same item only when sent again exactly as it was).
 */
export function itemIdentity(kind: RunKind, entry: InputEntry): string | undefined {
  const key = itemKey(kind, entry);
  if (key !== undefined || !entry.item) return key;
  return digest(`${kind}\0line\0${JSON.stringify(entry.item)}`);
}

/** What a run says, once, when it holds more item keys than it can check for repeats. */
export function tooManyKeys(): void {
  writeErr(`data-import: more than ${MAX_KEYS} item keys in this run: repeats after that are not checked\n`);
}
