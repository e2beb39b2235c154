// Every statement the service keeps in a PL/pgSQL function, planned once per connection
// (shared/platform/sql-function.ts). The migrations create them; test/platform/sql-functions.test.ts
// checks that the database holds exactly these definitions and that no kept plan reads a table whole.
import { ACCOUNT_FACTS, MOVE_PROCESS_BY_ID, MOVE_PROCESS_BY_KEY } from '../account-import/account-import.public';
import { WRITE_NOTES } from '../notes/note.public';
import type { SqlFunction } from '../platform/sql-function';
import { WRITE_STATEMENTS } from '../statements/statement.public';

export const SQL_FUNCTIONS: readonly SqlFunction[] = [
  WRITE_NOTES,
  WRITE_STATEMENTS,
  ACCOUNT_FACTS,
  MOVE_PROCESS_BY_ID,
  MOVE_PROCESS_BY_KEY,
];
