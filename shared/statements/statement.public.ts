// What other components may use of historical statements beyond their use cases: the catalog lists the
// write's function with the others planned once per connection (shared/catalog/sql-functions.ts).
export { WRITE_STATEMENTS } from './statement.repository';
