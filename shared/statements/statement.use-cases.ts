// POST /v1/data-import/historical-statements/create/: attach historical PDF statements to an account.
// One transaction of two statements in one round trip (statement.repository.ts): the account's checks,
// the already-stored check, the insert and the request's run-ledger rows.
import { assertWritable } from '../accounts/account.use-cases';
import type { Config } from '../platform/config';
import type { Database } from '../platform/db';
import { ValidationError } from '../platform/errors';
import { inOneRoundTrip } from '../platform/one-round-trip';
import { entriesOf, type RequestLedger } from '../runs/ledger.public';
import * as repo from './statement.repository';
import type { HistoricalStatementInput, StatementsAnswer, StatementsRequest } from './statement.schemas';

export interface StatementDeps {
  db: Database;
  config: Pick<Config, 'DOCUMENT_BUCKET'>;
  /** Bounds each statement of the write; 15 s unless a test says otherwise. */
  statementTimeoutMs?: number;
}

const STATEMENT_TIMEOUT_MS = 15_000;
// A statement_id inserted by a concurrent request between the check and the insert fails the write;
// run again, it finds the id stored. Bounded: each retry follows another request's commit.
const ATTEMPTS = 3;
const UNIQUE_VIOLATION = '23505';

/** Stores every statement or none (a dry run none); answers with the validated request (the spec's success body). */
export async function createHistoricalStatements(
  deps: StatementDeps,
  organisationId: number,
  request: StatementsRequest,
  ledger?: { run: RequestLedger; recorded(): void },
): Promise<StatementsAnswer> {
  const { dry_run: dryRun, ...answer } = request;
  // An empty list still answers the account's refusals; its ledger row is the API's (no item to count).
  const recorded = ledger && request.statements.length > 0 ? ledger : undefined;
  const statements = repo.statementsStatements({
    organisationId,
    supplierCode: request.import_supplier,
    externalAccountNumber: request.external_account_number,
    bucket: deps.config.DOCUMENT_BUCKET,
    dryRun: dryRun === true,
    timeoutMs: deps.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS,
    statements: request.statements.map(toNewStatement),
    ledger: recorded && { run: recorded.run, template: entriesOf(recorded.run.subject, 201, answer) },
  });
  const outcome = await writeOnce(deps.db, statements);
  assertWritable(request.import_supplier, outcome.supplierStatus);
  if (outcome.existing.length > 0) throw alreadyExists(request.statements, new Set(outcome.existing));
  recorded?.recorded();
  return answer;
}

async function writeOnce(db: Database, statements: ReturnType<typeof repo.statementsStatements>) {
  for (let attempt = 1; ; attempt++) {
    try {
      const [, written] = await inOneRoundTrip(db, statements);
      return repo.statementsOutcome(written!.rows as Parameters<typeof repo.statementsOutcome>[0]);
    } catch (err) {
      if ((err as { code?: unknown }).code !== UNIQUE_VIOLATION || attempt >= ATTEMPTS) throw err;
    }
  }
}

function toNewStatement(s: HistoricalStatementInput): repo.NewStatement {
  return {
    statementId: s.statement_id,
    billPeriodFromDate: s.bill_period_from_date,
    billPeriodToDate: s.bill_period_to_date,
    issuedDate: s.issued_date ?? null,
    number: s.number ?? null,
    grossAmount: s.gross_amount ?? null,
    statementPath: s.statement_path ?? null,
  };
}

function alreadyExists(statements: HistoricalStatementInput[], existing: Set<number>): ValidationError {
  const errors = statements.flatMap((s, i) =>
    !existing.has(i)
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
