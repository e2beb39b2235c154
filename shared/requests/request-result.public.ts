// What other components may use of the queued requests' result rows beyond their use cases (none imports
// request-result.repository.ts): account creation answers a schedule's request when it refuses or
// replaces it outside a job, with the same write-once rule as the jobs.
export { storeAnswerIfPending } from './request-result.repository';
