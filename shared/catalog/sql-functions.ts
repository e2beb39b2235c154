// Every statement the service keeps in a PL/pgSQL function, planned once per connection
// (shared/platform/sql-function.ts). The migrations create them; test/platform/sql-functions.test.ts
// checks that the database holds exactly these definitions and that no kept plan reads a table whole.
import { ACCOUNT_FACTS, MOVE_PROCESS_BY_ID, MOVE_PROCESS_BY_KEY } from '../account-import/account-import.public';
import { WRITE_NOTES } from '../notes/note.public';
import type { SqlFunction } from '../platform/sql-function';
import {
  INSERT_ANSWERED_RESULTS,
  INSERT_PENDING_RESULTS,
  LOCK_UNANSWERED_RESULTS,
  LOCK_UNANSWERED_RESULTS_NOWAIT,
  STORE_ANSWERS_BY_KEY,
} from '../requests/request-result.public';
import { INSERT_QUEUED_ENTRIES } from '../runs/ledger.public';
import { WRITE_STATEMENTS } from '../statements/statement.public';
import {
  FIND_EXISTING_TRANSACTIONS,
  INSERT_TRANSACTIONS,
  LOCK_ACCOUNTS_CHECKED,
  LOCK_ACCOUNTS_CHECKED_NOWAIT,
} from '../transactions/transaction.public';

export const SQL_FUNCTIONS: readonly SqlFunction[] = [
  WRITE_NOTES,
  WRITE_STATEMENTS,
  ACCOUNT_FACTS,
  MOVE_PROCESS_BY_ID,
  MOVE_PROCESS_BY_KEY,
  INSERT_PENDING_RESULTS,
  LOCK_UNANSWERED_RESULTS,
  LOCK_UNANSWERED_RESULTS_NOWAIT,
  LOCK_ACCOUNTS_CHECKED,
  LOCK_ACCOUNTS_CHECKED_NOWAIT,
  FIND_EXISTING_TRANSACTIONS,
  INSERT_TRANSACTIONS,
  STORE_ANSWERS_BY_KEY,
  INSERT_ANSWERED_RESULTS,
  INSERT_QUEUED_ENTRIES,
];
