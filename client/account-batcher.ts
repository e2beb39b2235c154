// Groups items per account into batches of up to `size`. Items of one account need not be adjacent:
// each account's group stays open until it is full, but at most `maxOpen` accounts stay open (the
// oldest is sent when one more opens), so memory is bounded however the file is ordered. Grouping
// depends only on the file and the options, so the same run groups the same way every time.
import type { AccountRef, InputEntry } from './input-reader';

export interface Batch {
  account: AccountRef;
  entries: InputEntry[];
}

export class AccountBatcher {
  private readonly open = new Map<string, Batch>();

  constructor(
    private readonly size: number,
    private readonly maxOpen: number,
  ) {}

  /** Adds an entry (it must have an account); returns the batches now ready to send. */
  add(entry: InputEntry): Batch[] {
    const account = entry.account!;
    // Supplier codes are [A-Za-z0-9_-]: the NUL cannot occur inside one, so the key is unambiguous.
    const id = `${account.import_supplier}\u0000${account.external_account_number}`;
    const ready: Batch[] = [];
    let batch = this.open.get(id);
    if (!batch) {
      if (this.open.size >= this.maxOpen) {
        const [oldest, first] = this.open.entries().next().value as [string, Batch];
        this.open.delete(oldest);
        ready.push(first);
      }
      batch = { account, entries: [] };
      this.open.set(id, batch);
    }
    batch.entries.push(entry);
    if (batch.entries.length >= this.size) {
      this.open.delete(id);
      ready.push(batch);
    }
    return ready;
  }

  drain(): Batch[] {
    const rest = [...this.open.values()];
    this.open.clear();
    return rest;
  }
}
