// What other components may use of the transactions beyond their use cases (none imports
// transaction.repository.ts): account creation stores a new account's ledger transactions in its own
// transaction, as the transactions endpoint's rows; the catalog lists the group's functions with the
// others planned once per connection.
export {
  FIND_EXISTING_TRANSACTIONS,
  INSERT_TRANSACTIONS,
  insertTransactions,
  LOCK_ACCOUNTS_CHECKED,
  LOCK_ACCOUNTS_CHECKED_NOWAIT,
  type NewTransaction,
} from './transaction.repository';
