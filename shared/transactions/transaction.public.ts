// What other components may use of the transactions beyond their use cases (none imports
// transaction.repository.ts): account creation stores a new account's ledger transactions in its own
// transaction, as the transactions endpoint's rows.
export { insertTransactions, type NewTransaction } from './transaction.repository';
