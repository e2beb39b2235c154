// What differs between the four endpoints the client sends to: the path, how a batch becomes a body,
// and how the answer maps back onto the batch's items. Everything else (batching, retries, journal)
// is the same for all of them.
import type { AccountRef } from './input-reader';

export const KINDS = ['notes', 'transactions', 'statements', 'payment-instructions'] as const;
export type Kind = (typeof KINDS)[number];

export interface KindSpec {
  path: string;
  /** The body's list of items; undefined when one request carries one item. */
  listField?: string;
  /** Queued endpoints take Idempotency-Key and the query options. */
  queued: boolean;
}

export const KIND_SPECS: Record<Kind, KindSpec> = {
  notes: { path: '/v1/data-import/notes/create/', listField: 'notes', queued: false },
  transactions: { path: '/v1/data-import/transactions/create/', listField: 'transactions', queued: true },
  statements: { path: '/v1/data-import/historical-statements/create/', listField: 'statements', queued: false },
  'payment-instructions': { path: '/v1/data-import/payment-instruction/create/', queued: true },
};

export const isKind = (s: string | undefined): s is Kind => (KINDS as readonly string[]).includes(s ?? '');

export interface SendOptions {
  check_previously_added?: boolean;
  force_add_to_current_statement?: boolean;
  dry_run?: boolean;
}

/** The account reference lives on the envelope; the items go in without it. */
export function buildBody(
  kind: Kind,
  account: AccountRef,
  items: Record<string, unknown>[],
  options: SendOptions,
): unknown {
  const { listField } = KIND_SPECS[kind];
  if (!listField) return items[0];
  const list = items.map(({ import_supplier: _s, external_account_number: _e, ...rest }) => rest);
  const body: Record<string, unknown> = { ...account, [listField]: list };
  if (kind === 'transactions' && options.dry_run) body.dry_run = true;
  return body;
}

export function buildQuery(kind: Kind, options: SendOptions): string {
  if (kind !== 'transactions') return '';
  const params = new URLSearchParams();
  if (options.check_previously_added !== undefined)
    params.set('check_previously_added', String(options.check_previously_added));
  if (options.force_add_to_current_statement !== undefined) {
    params.set('force_add_to_current_statement', String(options.force_add_to_current_statement));
  }
  const query = params.toString();
  return query ? `?${query}` : '';
}

export interface ItemSuccess {
  status: string;
  /** Whatever identifies the stored item in the answer (an added transaction's id, a statement id…). */
  id?: string;
}

/** Each item's status from a 201, in the batch's order. */
export function successesOf(kind: Kind, body: unknown, items: Record<string, unknown>[]): ItemSuccess[] {
  switch (kind) {
    case 'notes':
      return items.map((item, i) => ({
        status: textOf((body as { status?: unknown }[] | undefined)?.[i]?.status, 'NOTE_CREATION_SUCCESS'),
        ...(typeof item.external_id === 'string' ? { id: item.external_id } : {}),
      }));
    case 'transactions': {
      const results =
        (body as { results?: { status?: unknown; added_transaction_id?: unknown }[] } | undefined)?.results ?? [];
      return items.map((item, i) => {
        const r = results[i];
        const added = r?.added_transaction_id;
        return {
          status: textOf(r?.status, 'TRANSACTION_ADDED_TO_ACCOUNT'),
          // added_transaction_id is a JSON integer in the contract: a number must stay its digits.
          id: textOf(added, String(item.transaction_id)),
        };
      });
    }
    case 'statements':
      return items.map((item) => ({ status: 'HISTORICAL_STATEMENT_CREATED', id: String(item.statement_id) }));
    case 'payment-instructions': {
      const b = body as { platform_account_number?: unknown; reference?: unknown } | undefined;
      return [{ status: 'PAYMENT_INSTRUCTION_CREATED', id: textOf(b?.reference, textOf(items[0]?.reference, '')) }];
    }
  }
}

/**
 * A value read from a parsed answer as text: a string as it is, a number or boolean as its digits or
 * word (String's own form); anything else (absent, null, an object) is the fallback.
 */
export function textOf(value: unknown, fallback: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return fallback;
}

/** A status or code that means "the service already had it": a success that added nothing. */
export const isAlreadyExisting = (statusOrCode: string) => /already_exists$/i.test(statusOrCode);
