// What other components may use of account import beyond its use cases: the catalog lists its functions
// with the others planned once per connection (shared/catalog/sql-functions.ts).
export { ACCOUNT_FACTS } from './account-import.repository';
export { MOVE_PROCESS_BY_ID, MOVE_PROCESS_BY_KEY } from './process-lifecycle.repository';
