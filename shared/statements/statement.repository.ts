// Historical statements: one request is one transaction of two statements sent in one round trip
// (shared/platform/one-round-trip.ts). The first sets the transaction's timeouts; the second finds the
// account (visible, imported, its supplier Ongoing), the statement_ids it already has, and, when it
// has none of them, inserts every statement and the request's run-ledger rows (a dry run only the rows),
// inside the function write_statements, planned once per connection.
import {
  ACCOUNT_WRITE_ARGS,
  accountWriteValues,
  WRITABLE_ACCOUNT_SQL,
  type AccountWrite,
} from '../accounts/account.use-cases';
import { documentLocationSql } from '../platform/fields';
import type { Statement } from '../platform/one-round-trip';
import { callOf, type SqlFunction } from '../platform/sql-function';
import { countedLedgerInsert } from '../runs/ledger.public';

export interface NewStatement {
  statementId: string;
  /** YYYY-MM-DD */
  billPeriodFromDate: string;
  /** YYYY-MM-DD */
  billPeriodToDate: string;
  issuedDate: string | null;
  number: string | null;
  grossAmount: number | null;
  statementPath: string | null;
}

// Set in a statement of their own: `statement_timeout` then bounds the write (set_config is local to
// the transaction, so nothing stays on the connection).
const TIMEOUTS = `SELECT set_config('statement_timeout', $1, true), set_config('lock_timeout', $1, true),
                         set_config('jit', 'off', true)`;

// No ON CONFLICT: a statement_id another transaction inserts meanwhile fails the whole write (unique
// violation), which the caller runs again and then finds stored, so nothing is ever stored in part.
const WRITE = `WITH account AS MATERIALIZED (${WRITABLE_ACCOUNT_SQL}),
sent AS MATERIALIZED (
  SELECT a.id AS account_id, i.*,
         CASE WHEN i.statement_path IS NOT NULL
              THEN ${documentLocationSql('$4', 'a.document_root', 'i.statement_path')} END AS storage_location
    FROM account a
   CROSS JOIN unnest($7::text[], $8::date[], $9::date[], $10::date[], $11::text[], $12::bigint[], $13::text[])
         WITH ORDINALITY AS i(statement_id, bill_period_from_date, bill_period_to_date, issued_date, number,
                              gross_amount, statement_path, ord)
   WHERE a.status = 'Ongoing'),
existing AS MATERIALIZED (
  SELECT s.ord
    FROM sent s
   WHERE EXISTS (SELECT 1 FROM historical_statements h
                  WHERE h.account_id = s.account_id AND h.statement_id = s.statement_id)),
inserted AS (
  INSERT INTO historical_statements (account_id, statement_id, bill_period_from_date, bill_period_to_date,
                                     issued_date, number, gross_amount, statement_path, storage_location)
  SELECT s.account_id, s.statement_id, s.bill_period_from_date, s.bill_period_to_date, s.issued_date, s.number,
         s.gross_amount, s.statement_path, s.storage_location
    FROM sent s
   WHERE NOT $6 AND NOT EXISTS (SELECT 1 FROM existing)
   ORDER BY s.ord),
counted AS (
  SELECT NULL::text AS code, count(*)::int AS items FROM sent HAVING count(*) > 0 AND NOT EXISTS (SELECT 1 FROM existing)),
ledger AS (${countedLedgerInsert('$1', '$5', 'counted')})
SELECT a.status AS supplier_status, (e.ord - 1)::int AS existing
  FROM (SELECT 1) one
  LEFT JOIN account a ON true
  LEFT JOIN existing e ON true
 ORDER BY e.ord`;

/** WRITE, planned once per connection (shared/platform/sql-function.ts; migration 20261128210000). */
export const WRITE_STATEMENTS: SqlFunction = {
  name: 'write_statements',
  args: [...ACCOUNT_WRITE_ARGS, 'text[]', 'date[]', 'date[]', 'date[]', 'text[]', 'bigint[]', 'text[]'],
  returns: 'TABLE(supplier_status text, existing integer)',
  query: WRITE,
};
const CALL_WRITE_STATEMENTS = callOf(WRITE_STATEMENTS);

export interface StatementsWrite extends AccountWrite {
  statements: NewStatement[];
}

/** The two statements of one request (see WRITE): run them with inOneRoundTrip. */
export function statementsStatements(w: StatementsWrite): Statement[] {
  const s = w.statements;
  return [
    { text: TIMEOUTS, values: [String(Math.round(w.timeoutMs))] },
    {
      text: CALL_WRITE_STATEMENTS,
      values: [
        ...accountWriteValues(w),
        s.map((x) => x.statementId),
        s.map((x) => x.billPeriodFromDate),
        s.map((x) => x.billPeriodToDate),
        s.map((x) => x.issuedDate),
        s.map((x) => x.number),
        s.map((x) => x.grossAmount),
        s.map((x) => x.statementPath),
      ],
    },
  ];
}

/** The supplier's status (null: no account for the caller) and the indexes of the statements already stored. */
export function statementsOutcome(rows: { supplier_status: string | null; existing: number | null }[]): {
  supplierStatus: string | null;
  existing: number[];
} {
  return {
    supplierStatus: rows[0]?.supplier_status ?? null,
    existing: rows.flatMap((r) => (r.existing === null ? [] : [r.existing])),
  };
}
