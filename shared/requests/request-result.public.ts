// What other components may use of the queued requests' result rows beyond their use cases (none imports
// request-result.repository.ts): account creation answers a schedule's request when it refuses or
// replaces it outside a job, with the same write-once rule as the jobs; the catalog lists the group's
// functions with the others planned once per connection.
export {
  INSERT_ANSWERED_RESULTS,
  INSERT_PENDING_RESULTS,
  LOCK_UNANSWERED_RESULTS,
  LOCK_UNANSWERED_RESULTS_NOWAIT,
  STORE_ANSWERS_BY_KEY,
  storeAnswerIfPending,
} from './request-result.repository';
