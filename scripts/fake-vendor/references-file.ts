// The fake vendor's known references: the PaymentMethods a rehearsal's payment-instruction file names.
// One per line, either the bare reference (`pm_rehearsal_1`: an attached, unexpired visa card) or a JSON
// object naming it and what differs from that card, so a rehearsal can include the vendor's refusals:
//   {"reference":"pm_expired","exp_year":2020}           → payment_method_card_expired
//   {"reference":"pm_detached","customer":null}          → payment_method_not_attached
//   {"reference":"pm_bank","type":"sepa_debit"}          → payment_method_not_a_card
// A reference the file does not name answers Stripe's 404 (payment_instruction_not_found_at_vendor).
// Blank lines and lines starting with # are skipped. Bounded: at most MAX_LINES lines of MAX_LINE_CHARS.
import { readFileSync, statSync } from 'node:fs';
import type { FakePaymentMethod } from './fake-stripe';

const MAX_LINES = 200_000;
const MAX_LINE_CHARS = 2_000;
const MAX_FILE_BYTES = MAX_LINES * 200;
/** Stripe's PaymentMethod ids as the service accepts them (payment-instruction.schemas.ts). */
const REFERENCE = /^pm_[A-Za-z0-9_]{1,252}$/;

export type KnownReference = Partial<FakePaymentMethod> & { id: string };

const CARD_FIELDS = {
  brand: 'string',
  last4: 'string',
  exp_month: 'number',
  exp_year: 'number',
  funding: 'string',
  country: 'string',
  fingerprint: 'string',
} as const;

export class ReferencesFileError extends Error {}

/** Reads and checks a references file; throws ReferencesFileError naming the line at the first fault. */
export function readReferencesFile(file: string, now = new Date()): KnownReference[] {
  if (statSync(file).size > MAX_FILE_BYTES) {
    throw new ReferencesFileError(`${file}: larger than ${MAX_FILE_BYTES} bytes`);
  }
  const lines = readFileSync(file, 'utf8').split('\n');
  if (lines.length > MAX_LINES) throw new ReferencesFileError(`${file}: more than ${MAX_LINES} lines`);
  const known: KnownReference[] = [];
  const seen = new Set<string>();
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const where = `${file}:${i + 1}`;
    if (line.length > MAX_LINE_CHARS)
      throw new ReferencesFileError(`${where}: longer than ${MAX_LINE_CHARS} characters`);
    const reference = line.startsWith('{') ? parseObject(line, where, now) : { id: line };
    if (!REFERENCE.test(reference.id)) {
      throw new ReferencesFileError(`${where}: "${reference.id.slice(0, 80)}" is not a PaymentMethod id (pm_…)`);
    }
    if (seen.has(reference.id)) throw new ReferencesFileError(`${where}: ${reference.id} is named twice`);
    seen.add(reference.id);
    known.push(reference);
  });
  return known;
}

function parseObject(line: string, where: string, now: Date): KnownReference {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    throw new ReferencesFileError(`${where}: not JSON`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ReferencesFileError(`${where}: expected an object`);
  }
  const entry = value as Record<string, unknown>;
  if (typeof entry.reference !== 'string') throw new ReferencesFileError(`${where}: "reference" must be a string`);
  const method: KnownReference = { id: entry.reference };
  if ('customer' in entry) {
    if (entry.customer !== null && typeof entry.customer !== 'string') {
      throw new ReferencesFileError(`${where}: "customer" must be a cus_… string or null`);
    }
    method.customer = entry.customer;
  }
  if ('type' in entry) {
    if (typeof entry.type !== 'string') throw new ReferencesFileError(`${where}: "type" must be a string`);
    method.type = entry.type;
  }
  const card = cardOf(entry, where, now);
  if (card) method.card = card;
  return method;
}

/** The card of an entry that names any card field: the default card with those fields changed. */
function cardOf(entry: Record<string, unknown>, where: string, now: Date): FakePaymentMethod['card'] {
  const named = Object.keys(CARD_FIELDS).filter((field) => field in entry);
  if (named.length === 0) return undefined;
  const card: Record<string, unknown> = { ...defaultCard(now) };
  for (const field of named as (keyof typeof CARD_FIELDS)[]) {
    const value = entry[field];
    if (typeof value !== CARD_FIELDS[field] || (typeof value === 'string' && value.length > 100)) {
      throw new ReferencesFileError(`${where}: "${field}" must be a ${CARD_FIELDS[field]}`);
    }
    card[field] = value;
  }
  return card as FakePaymentMethod['card'];
}

/** The card every reference has unless its line says otherwise (the fake's own default, fingerprint fixed). */
function defaultCard(now: Date): NonNullable<FakePaymentMethod['card']> {
  return {
    brand: 'visa',
    last4: '4242',
    exp_month: 12,
    exp_year: now.getUTCFullYear() + 3,
    fingerprint: 'rehearsal',
    funding: 'credit',
    country: 'GB',
  };
}
