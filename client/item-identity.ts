// What makes two lines the same item, for the kinds that name their items: an account by its
// external_account_number, a transaction by its transaction_id on one account, a statement by its
// statement_id, a note by its external_id, a payment instruction by its reference. The sign-off pack
// uses it to see that a failed item succeeded later (from a fix file, at another line), and send and
// validate to catch an item repeated in one run before anything is sent.
import { createHash } from 'node:crypto';
import type { InputEntry } from './input-reader';
import type { RunKind } from './item-kinds';

/** The field naming a kind's item within its account (none for accounts: the account is the item). */
const KEY_FIELDS: Record<RunKind, readonly string[]> = {
  accounts: [],
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
export function keyDescription(kind: RunKind, entry: InputEntry): string | undefined {
  if (!entry.item || !entry.account) return undefined;
  if (kind === 'accounts') return `external_account_number ${entry.account.external_account_number}`;
  return keyValue(entry.item, kind)?.replace('=', ' ');
}

const digest = (text: string) => createHash('sha256').update(text).digest('base64url').slice(0, 32);

/**
 * The item's key within its supplier, as a fixed-size digest (undefined when the line names no item:
 * a note without an external_id, a line that did not parse). Account fields are bounded by the reader.
 */
export function itemKey(kind: RunKind, entry: InputEntry): string | undefined {
  if (!entry.item || !entry.account) return undefined;
  const { import_supplier: supplier, external_account_number: account } = entry.account;
  if (kind === 'accounts') return digest(`accounts\0${supplier}\0${account}`);
  const key = keyValue(entry.item, kind);
  return key === undefined ? undefined : digest(`${kind}\0${supplier}\0${account}\0${key}`);
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
