// POST /v1/data-import/historical-statements/create/: attach historical PDF statements to an account.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db';
import { ValidationError } from '../platform/errors';
import { resolveDocumentLocation } from '../platform/fields';
import * as repo from './statement.repository';
import type { HistoricalStatementInput, StatementsAnswer, StatementsRequest } from './statement.schemas';

export interface StatementDeps {
  db: Database;
  config: Pick<Config, 'DOCUMENT_BUCKET'>;
}

// A burst of clients can queue for a pool connection for a while; that is load, not an error.
const TX_OPTIONS = { maxWait: 10_000, timeout: 15_000 };

/** Stores every statement or none (a dry run none); answers with the validated request (the spec's success body). */
export async function createHistoricalStatements(
  deps: StatementDeps,
  organisationId: number,
  request: StatementsRequest,
): Promise<StatementsAnswer> {
  const { dry_run: dryRun, ...answer } = request;
  const account = await resolveWritableAccount(deps.db, organisationId, request);
  const rows = request.statements.map((s) => toNewStatement(s, deps.config.DOCUMENT_BUCKET, account.documentRoot));
  if (rows.length === 0) return answer;
  try {
    await deps.db.prisma.$transaction(async (tx) => {
      const inserted = await repo.insertNewStatements(tx, account.accountId, rows);
      // Throwing inside the transaction rolls back the statements that were new: all or nothing.
      if (inserted.size < rows.length) throw alreadyExists(request.statements, inserted);
      // A dry run goes as far as the real call, then rolls its rows back.
      if (dryRun) throw new DryRunRollback();
    }, TX_OPTIONS);
  } catch (err) {
    if (!(err instanceof DryRunRollback)) throw err;
  }
  return answer;
}

/** Thrown to end a dry run's transaction without keeping what it wrote. */
class DryRunRollback extends Error {}

function toNewStatement(s: HistoricalStatementInput, bucket: string, documentRoot: string): repo.NewStatement {
  return {
    statementId: s.statement_id,
    billPeriodFromDate: s.bill_period_from_date,
    billPeriodToDate: s.bill_period_to_date,
    issuedDate: s.issued_date ?? null,
    number: s.number ?? null,
    grossAmount: s.gross_amount ?? null,
    statementPath: s.statement_path ?? null,
    storageLocation:
      s.statement_path === undefined ? null : resolveDocumentLocation(bucket, documentRoot, s.statement_path),
  };
}

function alreadyExists(statements: HistoricalStatementInput[], inserted: Set<string>): ValidationError {
  const errors = statements.flatMap((s, i) =>
    inserted.has(s.statement_id)
      ? []
      : [
          {
            attr: `statements.${i}.statement_id`,
            code: 'historical_statement_already_exists',
            detail: `The account already has a historical statement with statement_id "${s.statement_id}".`,
          },
        ],
  );
  return new ValidationError(errors, errors[0]!.detail, 'historical_statement_already_exists');
}
