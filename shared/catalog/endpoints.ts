// Every endpoint of the data-import API, for the processes: api/ mounts each at its path with the
// steps its declaration asks for (api/endpoint-routes.ts), and the OpenAPI document describes each.
// Each endpoint is declared in its component (shared/requests/endpoint-declaration.ts says what a
// declaration holds); adding one here is all it takes for it to be documented, recorded in the run
// ledger and load-shed as it declares.
import { PROCESS_LIST_ENDPOINTS, transferStatusEndpoint } from '../accounts/account.endpoint';
import { ACCOUNT_IMPORT_ENDPOINTS } from '../account-import/account-import.endpoint';
import { createNotesEndpoint } from '../notes/note.endpoint';
import { createPaymentInstructionEndpoint } from '../payment-instructions/payment-instruction.endpoint';
import { reconciliationEndpoint } from '../reconciliation/reconciliation.endpoint';
import type { EndpointDeclaration } from '../requests/endpoint-declaration';
import { requestAnswerEndpoint } from '../requests/request-answer.endpoint';
import { runEndpoint } from '../run-progress/run.endpoint';
import { runDeclarationEndpoint } from '../run-progress/run-declaration.endpoint';
import { createStatementsEndpoint } from '../statements/statement.endpoint';
import { createTransactionsEndpoint } from '../transactions/transaction.endpoint';

/** In the order the OpenAPI document lists them. */
export const DATA_IMPORT_ENDPOINTS: readonly EndpointDeclaration[] = [
  createNotesEndpoint,
  createStatementsEndpoint,
  createTransactionsEndpoint,
  createPaymentInstructionEndpoint,
  requestAnswerEndpoint,
  ...ACCOUNT_IMPORT_ENDPOINTS,
  transferStatusEndpoint,
  ...PROCESS_LIST_ENDPOINTS.map((l) => l.endpoint),
  reconciliationEndpoint,
  runEndpoint,
  runDeclarationEndpoint,
];

/**
 * As stored in run_ledger.endpoint: a queued job's endpoint (which request_results stores too), or the
 * path under /v1/data-import/ without its slashes.
 */
export function ledgerEndpointOf(declaration: EndpointDeclaration): string {
  return declaration.job?.endpoint ?? declaration.path.replace(/^\/v1\/data-import\//, '').replace(/\/$/, '');
}
