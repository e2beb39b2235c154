// What one write request did to its items, as run-ledger rows: read from the request (which account,
// how many items, dry run or not) and its answer (status and body), the same way for every endpoint
// and on both sides (the API for what it answers itself, the worker for queued answers).
import { codeOfErrorBody } from '../platform/errors';
import { IdentifierField } from '../platform/fields';
import { isStorableText } from '../platform/validation';

/** What a ledger row says of the items it counts. */
export const OUTCOMES = ['written', 'skipped', 'dry_run', 'refused', 'not_written', 'failed'] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The account a request names and how many items it carries, read from its (possibly invalid) body. */
export interface LedgerSubject {
  supplierCode: string | null;
  externalAccountNumber: string | null;
  items: number;
  dryRun: boolean;
  /** The body's list of items (`transactions`), whose index an error's attr names. */
  listField: string | null;
}

export interface LedgerEntry {
  outcome: Outcome;
  code: string | null;
  attr: string | null;
  /** A refusal's or failure's own words (cut to 255 characters); null for items that went through. */
  detail?: string | null;
  items: number;
}

/** Rows one request writes at most: beyond, the remaining errors are counted per code without attr. */
const MAX_ENTRIES_PER_REQUEST = 100;
const MAX_TEXT = 255;
const LIST_FIELDS = ['transactions', 'notes', 'statements'] as const;

// Cut first; text no row can hold (NUL, a lone surrogate, from a refused body) is not recorded.
const text = (value: unknown): string | null => {
  if (typeof value !== 'string' || value.length === 0) return null;
  const cut = value.slice(0, MAX_TEXT);
  return isStorableText(cut) ? cut : null;
};

/**
 * Where an endpoint's request names its account (its declaration's `ledger.subject`): the fields are
 * read only when they pass the same rule the request's own schema checks them with, so a refused
 * request still names its account when that part of it was valid.
 */
export interface LedgerSubjectFields {
  /** The object that holds the fields (`payload` of a v2 schedule); the body itself when left out. */
  within?: string;
  supplier: string;
  /** The account number's field, then any alias the endpoint also takes. */
  account: readonly string[];
  /** The list of items whose index an error's attr names; without one, the request is one item. */
  list?: string;
  /** Where the flag that makes it a dry run sits, from the body itself (`['task_params', 'is_dry_run']`). */
  dryRun?: readonly string[];
}

const Identifier = IdentifierField(128);
const identifier = (value: unknown): string | null => {
  if (typeof value !== 'string' || value.length > 128) return null;
  return Identifier.safeParse(value).success && isStorableText(value) ? value : null;
};

/** The subject of a request, read where its declaration says, by the rules that validate it. */
export function readSubject(fields: LedgerSubjectFields, body: unknown): LedgerSubject {
  const outer = isObject(body) ? body : {};
  const inner = fields.within === undefined ? outer : outer[fields.within];
  const r = isObject(inner) ? inner : {};
  const list = fields.list !== undefined && Array.isArray(r[fields.list]) ? (r[fields.list] as unknown[]) : null;
  const account = fields.account.map((f) => identifier(r[f])).find((v) => v !== null) ?? null;
  return {
    supplierCode: identifier(r[fields.supplier]),
    externalAccountNumber: account,
    items: list ? list.length : 1,
    dryRun: fields.dryRun !== undefined && valueAt(outer, fields.dryRun) === true,
    listField: list ? fields.list! : null,
  };
}

function valueAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((v, key) => (isObject(v) ? v[key] : undefined), value);
}

/**
 * The subject of a request body (`{options, request}` for queued transactions, the body itself
 * elsewhere). Nothing here trusts the body: a malformed one gives nulls and one item.
 */
export function subjectOf(body: unknown): LedgerSubject {
  const outer = isObject(body) ? body : {};
  const r = isObject(outer.request) ? outer.request : outer;
  const listField = LIST_FIELDS.find((f) => Array.isArray(r[f])) ?? null;
  return {
    supplierCode: text(r.import_supplier) ?? text(r.import_supplier_code),
    externalAccountNumber: text(r.external_account_number) ?? text(r.external_identifier),
    items: listField ? (r[listField] as unknown[]).length : 1,
    dryRun: r.dry_run === true || r.is_dry_run === true,
    listField,
  };
}

/** The rows of one answer. */
export function entriesOf(subject: LedgerSubject, status: number, body: unknown): LedgerEntry[] {
  if (status < 400) return successEntries(subject, body);
  const code = codeOfErrorBody(body) ?? `http_${status}`;
  const detail = isObject(body) ? text(body.detail) : null;
  if (status >= 500) return [{ outcome: 'failed', code, attr: null, detail, items: subject.items }];
  const errors = isObject(body) && Array.isArray(body.errors) ? body.errors : [];
  return refusalEntries(subject, { code, detail }, errors);
}

/** Per item status when the answer lists them (notes, transactions); otherwise every item went through. */
function successEntries(subject: LedgerSubject, body: unknown): LedgerEntry[] {
  const listed = Array.isArray(body) ? body : isObject(body) && Array.isArray(body.results) ? body.results : null;
  const statuses = listed?.map((item) => (isObject(item) ? text(item.status) : null)) ?? [];
  if (statuses.length === 0)
    return [{ outcome: subject.dryRun ? 'dry_run' : 'written', code: null, attr: null, items: subject.items }];
  const counts = new Map<string | null, number>();
  for (const s of statuses) counts.set(s, (counts.get(s) ?? 0) + 1);
  return [...counts].map(([status, items]) => ({
    outcome: subject.dryRun ? 'dry_run' : status?.endsWith('_ALREADY_EXISTS') ? 'skipped' : 'written',
    code: status,
    attr: null,
    items,
  }));
}

/**
 * A refusal writes nothing. Each field error of an item is a row (its code at its attr), counting the
 * item once; the request's other items are `not_written`. Errors that name no item (an unknown
 * account) count every item, once.
 */
function refusalEntries(
  subject: LedgerSubject,
  refusal: { code: string; detail: string | null },
  errors: unknown[],
): LedgerEntry[] {
  const { code } = refusal;
  const rows: LedgerEntry[] = [];
  const itemsWithErrors = new Set<number>();
  const overflow = new Map<string, number>();
  let whole = false;
  for (const e of errors.slice(0, subject.items * 50 + 50)) {
    const errorCode = (isObject(e) && text(e.code)) || code;
    const attr = isObject(e) ? text(e.attr) : null;
    const detail = (isObject(e) && text(e.detail)) || refusal.detail;
    const item = itemOf(subject.listField, attr);
    const counted = item === undefined ? (whole ? 0 : subject.items) : itemsWithErrors.has(item) ? 0 : 1;
    if (item === undefined) whole = true;
    else itemsWithErrors.add(item);
    if (rows.length < MAX_ENTRIES_PER_REQUEST - 1)
      rows.push({ outcome: 'refused', code: errorCode, attr, detail, items: counted });
    else overflow.set(errorCode, (overflow.get(errorCode) ?? 0) + counted);
  }
  for (const [c, items] of overflow) rows.push({ outcome: 'refused', code: c, attr: null, items });
  if (rows.length === 0)
    return [{ outcome: 'refused', code, attr: null, detail: refusal.detail, items: subject.items }];
  const rest = whole ? 0 : subject.items - itemsWithErrors.size;
  if (rest > 0) rows.push({ outcome: 'not_written', code: null, attr: null, items: rest });
  return rows;
}

/** The item an attr names (`transactions.3.product_code` → 3), when it names one of the list's items. */
function itemOf(listField: string | null, attr: string | null): number | undefined {
  if (listField === null || attr === null || !attr.startsWith(`${listField}.`)) return undefined;
  const index = attr.slice(listField.length + 1).split('.', 1)[0]!;
  return /^\d{1,6}$/.test(index) ? Number(index) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
