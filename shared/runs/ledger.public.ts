// What other components may use of the run ledger (none imports ledger.repository.ts): the queued-job
// runner records its group's answers in the group's transaction; the synchronous writes (notes,
// statements) record theirs in their own transaction.
export { countedLedgerInsert, insertQueuedEntries, ledgerTemplate, type RequestLedger } from './ledger.repository';
export { entriesOf } from './ledger-entries';
