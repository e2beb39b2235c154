// Request bodies and ceiling rows. Every transaction id and note body is unique across runs (runId),
// so nothing is deduplicated away and every item is a real insert.
export interface WriteTarget {
  supplier: string;
  external: string;
}

const KINDS = [
  (id: string, amount: string) =>
    `{"transaction_id":"${id}","transaction_date":"2024-03-15","amount":${amount},"type":"CHARGE","reason":"IMPORTED_CHARGE","display_note":"Imported charge ${id}"}`,
  (id: string, amount: string) =>
    `{"transaction_id":"${id}","transaction_date":"2024-03-16","amount":${amount},"type":"PAYMENT","reason":"ACCOUNT_CHARGE_PAYMENT","reference":"PAY-${id}","payment_type":"DD_REGULAR_COLLECTION"}`,
  (id: string, amount: string) =>
    `{"transaction_id":"${id}","transaction_date":"2024-03-17","amount":${amount},"type":"CREDIT","reason":"GENERAL_CREDIT","note":"Goodwill credit ${id}"}`,
  (id: string, amount: string) =>
    `{"transaction_id":"${id}","transaction_date":"2024-03-18","amount":${amount},"type":"REPAYMENT","reference":"REF-${id}","payment_type":"DIRECT_CREDIT"}`,
];

const amountOf = (n: number) => `${1 + (n % 997)}.${String(n % 100).padStart(2, '0')}`;

export function transactionsBody(target: WriteTarget, runId: string, seq: number, batch: number): string {
  const items: string[] = [];
  for (let i = 0; i < batch; i++) items.push(KINDS[i % KINDS.length]!(`${runId}-${seq}-${i}`, amountOf(seq + i)));
  return `{"import_supplier":"${target.supplier}","external_account_number":"${target.external}","transactions":[${items.join(',')}]}`;
}

export function notesBody(target: WriteTarget, runId: string, seq: number, batch: number): string {
  const items: string[] = [];
  for (let i = 0; i < batch; i++) {
    items.push(
      `{"body":"Call ${runId}-${seq}-${i}: customer asked about the migrated balance and the next direct debit date.",` +
        `"created_at":"2024-03-${String(1 + (i % 28)).padStart(2, '0')}T10:${String(i % 60).padStart(2, '0')}:00Z"}`,
    );
  }
  return `{"import_supplier":"${target.supplier}","external_account_number":"${target.external}","notes":[${items.join(',')}]}`;
}

/**
 * The ceiling's statement: the worker's own INSERT … SELECT FROM unnest(…) RETURNING (same columns,
 * same casts) with PAYMENT rows as the worker would store them, one autocommit statement per batch.
 */
export const CEILING_SQL = `
  INSERT INTO transactions (
    account_id, request_id, transaction_id, transaction_date, original_date, amount, type, reason,
    display_note, note, reference, payment_type, product_code, line_items, tax_items, description, submitted)
  SELECT $1::int, $2::text, u.*
    FROM unnest($3::text[], $4::date[], $5::date[], $6::numeric[], $7::text[], $8::text[], $9::text[],
                $10::text[], $11::text[], $12::text[], $13::text[], $14::jsonb[], $15::jsonb[], $16::text[],
                $17::jsonb[]) AS u
  RETURNING id, transaction_id`;

export function ceilingParams(accountId: number, runId: string, seq: number, batch: number): unknown[] {
  const ids: string[] = [];
  const amounts: string[] = [];
  const references: string[] = [];
  const submitted: string[] = [];
  for (let i = 0; i < batch; i++) {
    const id = `${runId}-c${seq}-${i}`;
    const amount = amountOf(seq + i);
    ids.push(id);
    amounts.push(amount);
    references.push(`PAY-${id}`);
    submitted.push(
      JSON.stringify({
        transaction_id: id,
        transaction_date: '2024-03-16',
        amount: amount,
        type: 'PAYMENT',
        reason: 'ACCOUNT_CHARGE_PAYMENT',
        reference: `PAY-${id}`,
        payment_type: 'DD_REGULAR_COLLECTION',
      }),
    );
  }
  const same = <T>(v: T) => new Array<T>(batch).fill(v);
  return [
    accountId,
    `${runId}-c${seq}`,
    ids,
    same('2024-03-16'),
    same(null),
    amounts,
    same('PAYMENT'),
    same('ACCOUNT_CHARGE_PAYMENT'),
    same(null),
    same(null),
    references,
    same('DD_REGULAR_COLLECTION'),
    same(null),
    same(null),
    same(null),
    same(null),
    submitted,
  ];
}

export function statementsBody(target: WriteTarget, runId: string, seq: number, batch: number): string {
  const items: string[] = [];
  for (let i = 0; i < batch; i++) {
    const month = String(1 + (i % 12)).padStart(2, '0');
    items.push(
      `{"statement_id":"${runId}-${seq}-${i}","bill_period_from_date":"2023-${month}-01",` +
        `"bill_period_to_date":"2023-${month}-28","issued_date":"2023-${month}-28","gross_amount":${1000 + ((seq + i) % 9000)}}`,
    );
  }
  return `{"import_supplier":"${target.supplier}","external_account_number":"${target.external}","statements":[${items.join(',')}]}`;
}
