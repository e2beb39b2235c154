// What a write that looks its account up in its own statement (notes, statements) sends first: $1–$3
// for WRITABLE_ACCOUNT_SQL (account.repository.ts), then $4 the document bucket, $5 the run-ledger rows
// of its success ('[]' for none) and $6 whether it is a dry run.
import { ledgerTemplate, type RequestLedger } from '../runs/ledger.public';

/** Who writes, where, and what the request's run-ledger rows say (none when undefined). */
export interface AccountWrite {
  organisationId: number;
  supplierCode: string;
  externalAccountNumber: string;
  bucket: string;
  dryRun: boolean;
  timeoutMs: number;
  /** The request's rows when it succeeds (entriesOf for the answer, `items` counted by the write). */
  ledger?: { run: RequestLedger; template: Parameters<typeof ledgerTemplate>[2] };
}

/** The parameters $1–$6 of such a write's statement. */
export function accountWriteValues(w: AccountWrite): unknown[] {
  return [
    w.organisationId,
    w.supplierCode,
    w.externalAccountNumber,
    w.bucket,
    w.ledger ? ledgerTemplate(w.ledger.run, 201, w.ledger.template) : '[]',
    w.dryRun,
  ];
}

/** The types of $1–$6, as a function that takes them declares its first arguments (sql-function.ts). */
export const ACCOUNT_WRITE_ARGS = ['integer', 'text', 'text', 'text', 'text', 'boolean'] as const;
