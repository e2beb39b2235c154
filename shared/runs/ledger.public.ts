// What other components may use of the run ledger (none imports ledger.repository.ts): the queued-job
// runner records its group's answers in the group's transaction; the synchronous writes (notes,
// statements) record theirs in their own transaction. The catalog lists its function with the others
// planned once per connection.
export {
  countedLedgerInsert,
  INSERT_QUEUED_ENTRIES,
  insertQueuedEntries,
  ledgerTemplate,
  type RequestLedger,
} from './ledger.repository';
export { entriesOf } from './ledger-entries';
