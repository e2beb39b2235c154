// Account import processes and accounts, always read through the caller's organisation: a supplier
// the organisation is not assigned to behaves exactly as one that does not exist. Plain SQL on pg:
// every write and every status request starts here (see shared/platform/db.ts for the cost of Prisma).
import type { Pool, PoolClient } from 'pg';
import QueryStream from 'pg-query-stream';
import type { Prepared, Sql } from '../platform/db';
import type { SupplierStatus } from '../generated/prisma/client';

export interface ProcessStatusRow {
  state: 'STAGED' | 'IN_PROGRESS' | 'IMPORTED' | 'FAILED';
  platform_account_number: string | null;
}

const FIND_PROCESS_STATUS: Prepared = {
  name: 'accounts.find-process-status',
  text: `SELECT p.state::text AS state, a.platform_account_number
           FROM account_import_processes p
           JOIN organisation_suppliers os
             ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           LEFT JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3`,
};

export async function findProcessStatus(
  db: Sql,
  organisationId: number,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<ProcessStatusRow | undefined> {
  const { rows } = await db.query<ProcessStatusRow>(FIND_PROCESS_STATUS, [organisationId, supplierCode, externalAccountNumber]);
  return rows[0];
}

export async function isSupplierVisible(db: Sql, organisationId: number, supplierCode: string): Promise<boolean> {
  const { rows } = await db.query(
    'SELECT 1 FROM organisation_suppliers WHERE organisation_id = $1 AND supplier_code = $2',
    [organisationId, supplierCode],
  );
  return rows.length > 0;
}

export interface ImportedAccount {
  accountId: number;
  platformAccountNumber: string;
  supplierCode: string;
  supplierStatus: SupplierStatus;
  documentRoot: string;
}

const FIND_IMPORTED_ACCOUNT: Prepared = {
  name: 'accounts.find-imported-account',
  text: `SELECT a.id AS account_id, a.platform_account_number, s.status::text AS status, s.document_root
           FROM account_import_processes p
           JOIN organisation_suppliers os
             ON os.supplier_code = p.supplier_code AND os.organisation_id = $1
           JOIN import_suppliers s ON s.code = p.supplier_code
           JOIN accounts a ON a.process_id = p.id
          WHERE p.supplier_code = $2 AND p.external_account_number = $3
            AND p.state = 'IMPORTED'`,
};

/** The imported account behind (supplier, external number), or undefined when it is not imported or not visible. */
export async function findImportedAccount(
  db: Sql,
  organisationId: number,
  supplierCode: string,
  externalAccountNumber: string,
): Promise<ImportedAccount | undefined> {
  const { rows } = await db.query<{
    account_id: number;
    platform_account_number: string;
    status: SupplierStatus;
    document_root: string;
  }>(FIND_IMPORTED_ACCOUNT, [organisationId, supplierCode, externalAccountNumber]);
  const row = rows[0];
  return (
    row && {
      accountId: row.account_id,
      platformAccountNumber: row.platform_account_number,
      supplierCode,
      supplierStatus: row.status,
      documentRoot: row.document_root,
    }
  );
}

export type ProcessListFilter = 'all' | 'pending' | 'imported';

const FILTER_SQL: Record<ProcessListFilter, string> = {
  all: '',
  pending: 'AND a.id IS NULL',
  imported: 'AND a.id IS NOT NULL',
};

export interface ProcessListRow {
  external_account_number: string;
  platform_account_number: string | null;
  account_created_at: string | null;
}

/**
 * Streams the supplier's processes in external-account-number order from a server-side cursor, so a
 * million rows never sit in memory. The caller must call `release` when the stream ends or fails.
 * The cursor runs in a read-only transaction; `timeoutMs` bounds it twice: PostgreSQL's
 * statement_timeout bounds each fetch, and a timer bounds the whole stream. The timer is needed
 * because PostgreSQL stops the statement clock whenever a fetch returns, so a cursor whose client
 * stopped reading sits "active" with no clock running; destroying the stream fails the response and
 * destroys the connection, which ends the backend's cursor.
 */
export async function streamProcessList(
  pool: Pool,
  supplierCode: string,
  filter: ProcessListFilter,
  timeoutMs: number,
): Promise<{ stream: QueryStream; release: (err?: Error) => void }> {
  const client: PoolClient = await pool.connect();
  const stream = new QueryStream(
    `SELECT p.external_account_number,
            a.platform_account_number,
            to_char(a.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"') AS account_created_at
       FROM account_import_processes p
       LEFT JOIN accounts a ON a.process_id = p.id
      WHERE p.supplier_code = $1 ${FILTER_SQL[filter]}
      ORDER BY p.external_account_number`,
    [supplierCode],
    { batchSize: 2000 },
  );
  // A connection lost between fetches (PostgreSQL ending the idle session, a restart) reaches no
  // pending read while backpressure holds the stream: fail the stream from here. The listener also
  // keeps the client's 'error' event from crashing the process.
  const lost = (err: Error) => stream.destroy(err);
  client.on('error', lost);
  let released = false;
  const release = (err?: Error) => {
    if (released) return;
    released = true;
    client.off('error', lost);
    // A failed or abandoned cursor leaves its connection in an unknown state: it is destroyed, not reused.
    if (err) return client.release(err);
    client.query('COMMIT').then(
      () => client.release(),
      (commitErr: Error) => client.release(commitErr),
    );
  };
  try {
    const ms = Math.round(timeoutMs);
    await client.query(`BEGIN READ ONLY; SET LOCAL statement_timeout = ${ms}`);
  } catch (err) {
    release(err as Error);
    throw err;
  }
  const deadline = setTimeout(() => {
    if (!stream.destroyed && !stream.readableEnded) stream.destroy(new Error(`list cursor open longer than ${timeoutMs} ms`));
  }, timeoutMs);
  deadline.unref();
  stream.once('close', () => clearTimeout(deadline));
  client.query(stream);
  return { stream, release };
}
