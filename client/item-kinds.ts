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

/** Accounts travel apart (client/accounts/): scheduled one per request, then followed to a final status. */
export type RunKind = Kind | 'accounts';

export interface SendOptions {
  check_previously_added?: boolean;
  force_add_to_current_statement?: boolean;
  dry_run?: boolean;
  /** Accounts only: the v2 schedule window (task_params). */
  schedule_window_start?: string;
  schedule_window_end?: string;
}

/** The account reference lives on the envelope; the items go in without it. */
export function buildBody(
  kind: Kind,
  account: AccountRef,
  items: Record<string, unknown>[],
  options: SendOptions,
): unknown {
  const { listField } = KIND_SPECS[kind];
  // Every write endpoint takes dry_run in the body; it is sent only when asked for.
  const dryRun = options.dry_run ? { dry_run: true } : {};
  if (!listField) return { ...items[0], ...dryRun };
  const list = items.map(({ import_supplier: _s, external_account_number: _e, ...rest }) => rest);
  return { ...account, [listField]: list, ...dryRun };
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
  /** The service already had the item, but not as sent (`matches_stored: false`): differs.ndjson. */
  differs?: true;
}

const NOTE_STATUSES = ['NOTE_CREATION_SUCCESS', 'NOTE_ALREADY_EXISTS'];
const TRANSACTION_STATUSES = ['TRANSACTION_ADDED_TO_ACCOUNT', 'TRANSACTION_ALREADY_EXISTS'];

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Each item's outcome from a 2xx, in the batch's order; undefined when the answer does not hold one
 * result per item (empty, not JSON, too few or unknown statuses). Such an answer proves nothing was
 * stored, so the caller retries the request instead of recording its items as succeeded.
 */
export function resultsOf(kind: Kind, body: unknown, items: Json[]): ItemSuccess[] | undefined {
  const per = (list: unknown, statuses: string[] | undefined, make: (r: Json, i: number) => ItemSuccess) => {
    if (!Array.isArray(list) || list.length !== items.length) return undefined;
    const results: ItemSuccess[] = [];
    for (const [i, r] of list.entries()) {
      if (!isObject(r) || (statuses && !statuses.includes(r.status as string))) return undefined;
      results.push({ ...make(r, i), ...(differsFromStored(r) ? { differs: true } : {}) });
    }
    return results;
  };
  switch (kind) {
    case 'notes':
      return per(body, NOTE_STATUSES, (r, i) => ({
        status: r.status as string,
        ...(typeof items[i]!.external_id === 'string' ? { id: items[i]!.external_id } : {}),
      }));
    case 'transactions':
      return per(isObject(body) ? body.results : undefined, TRANSACTION_STATUSES, (r, i) => ({
        status: r.status as string,
        // added_transaction_id is a JSON integer in the contract: a number must stay its digits.
        id: integerText(r.added_transaction_id) ?? String(items[i]!.transaction_id),
      }));
    case 'statements':
      return per(isObject(body) ? body.statements : undefined, undefined, (_, i) => ({
        status: 'HISTORICAL_STATEMENT_CREATED',
        id: String(items[i]!.statement_id),
      }));
    case 'payment-instructions':
      if (!isObject(body) || typeof body.reference !== 'string') return undefined;
      return per([body], undefined, (r) => ({
        status: 'PAYMENT_INSTRUCTION_CREATED',
        id: String(r.reference).slice(0, 512),
      }));
  }
}

/**
 * `matches_stored: false` on a per-item result, or on an object it echoes (a transaction's
 * `transaction_data`): the service kept what it had, which is not what this line says.
 */
export function differsFromStored(result: unknown): boolean {
  if (!isObject(result)) return false;
  if (result.matches_stored === false) return true;
  // A result has a handful of fields; the bound keeps a hostile one from costing more.
  return Object.values(result)
    .slice(0, 100)
    .some((v) => isObject(v) && v.matches_stored === false);
}

function integerText(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 1e21) return String(value);
  if (typeof value === 'string' && value.length <= 20 && /^\d{1,20}$/.test(value)) return value;
  return undefined;
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
