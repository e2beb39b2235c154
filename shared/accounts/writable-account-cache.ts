// A short in-process memory of the accounts writes resolved (resolveWritableAccount), so a burst of
// requests for the same accounts costs the API no statement. Only positive answers are kept: an account
// not found or on a supplier whose migration is not Ongoing is looked up again by the next request, so
// an account imported a moment ago is found at once. What may change under an entry (the account gone
// or no longer imported, the migration no longer Ongoing, the organisation losing the supplier) is
// checked again where the write commits: the job's account lock reads it (shared/transactions/
// transaction.repository.ts lockAccounts). Bounded in entries (least recently used goes first) and in
// age (ACCOUNT_CACHE_SIZE, ACCOUNT_CACHE_MS).
import type { ImportedAccount } from './account.repository';

export interface WritableAccountCacheOptions {
  maxEntries: number;
  ttlMs: number;
  nowMs?: () => number;
}

interface Entry {
  account: ImportedAccount;
  untilMs: number;
}

export interface AccountKey {
  organisationId: number;
  supplierCode: string;
  externalAccountNumber: string;
}

export class WritableAccountCache {
  // Map keeps insertion order: the first key is the least recently used entry.
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;

  constructor(private readonly opts: WritableAccountCacheOptions) {
    this.now = opts.nowMs ?? Date.now;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The account remembered for `key`, if it is younger than the TTL. */
  get(key: AccountKey): ImportedAccount | undefined {
    const k = keyOf(key);
    const hit = this.entries.get(k);
    if (!hit) return undefined;
    this.entries.delete(k);
    if (this.now() >= hit.untilMs) return undefined;
    this.entries.set(k, hit);
    return hit.account;
  }

  /** Forgets `key`'s account: the write it resolved was refused where it committed. */
  delete(key: AccountKey): void {
    this.entries.delete(keyOf(key));
  }

  /** Remembers a writable account (never a refusal) for the TTL. */
  set(key: AccountKey, account: ImportedAccount): void {
    if (this.opts.maxEntries <= 0 || this.opts.ttlMs <= 0) return;
    const k = keyOf(key);
    this.entries.delete(k);
    if (this.entries.size >= this.opts.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(k, { account, untilMs: this.now() + this.opts.ttlMs });
  }
}

// JSON: no pair of different keys gives the same text, whatever characters the strings hold.
const keyOf = (key: AccountKey) => JSON.stringify([key.organisationId, key.supplierCode, key.externalAccountNumber]);
