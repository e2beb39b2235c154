// What other components may use of the run ledger (none imports ledger.repository.ts): the queued-job
// runner records its group's answers in the group's transaction.
export { insertQueuedEntries } from './ledger.repository';
