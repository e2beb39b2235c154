// Migration progress: one account's transfer status and the three streamed process lists. The
// handlers are api/routes/accounts.routes.ts.
import { z } from 'zod';
import { ImportProcess, TransferStatus } from '../openapi/bodies.schemas';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { ExternalAccountParam, SupplierCodeParam } from '../openapi/operation-parts';
import { jsonResponse, REQUEST_ID_HEADER, type Examples } from '../openapi/responses';
import { endpoint, type EndpointDeclaration } from '../requests/endpoint-declaration';
import type { ProcessListFilter } from './account.repository';

const TAG = 'Migration progress';

export const transferStatusEndpoint = endpoint({
  method: 'get',
  path: '/v1/data-import/account-transfer-status/{import_supplier_code}/{external_account_number}/',
  operationId: 'getAccountTransferStatus',
  errors: ERRORS.transferStatus,
  describe: () => ({
    tag: TAG,
    summary: 'Find out the status of a single account import process',
    description: 'Answers whenever an import process exists for the pair, whether or not an account was created.',
    request: {
      params: z.object({ import_supplier_code: SupplierCodeParam, external_account_number: ExternalAccountParam }),
    },
    answers: {
      200: jsonResponse(
        'The import status.',
        TransferStatus,
        { completed: { value: ex.transferStatusCompleted }, notCreatedYet: { value: ex.transferStatusUnknown } },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});

interface ListSpec {
  name: string;
  operationId: string;
  summary: string;
  description: string;
  examples: Examples;
}

function processListEndpoint(list: ListSpec): EndpointDeclaration {
  return endpoint({
    method: 'get',
    path: `/v1/data-import/${list.name}/{import_supplier_code}/`,
    operationId: list.operationId,
    errors: ERRORS.processList,
    loadShedding: 'stream',
    describe: () => ({
      tag: TAG,
      summary: list.summary,
      description: `${list.description} A bare JSON array ordered by \`external_account_number\`, streamed (no paging); \`[]\` when there are none.`,
      request: { params: z.object({ import_supplier_code: SupplierCodeParam }) },
      answers: {
        200: jsonResponse('The matching import processes.', z.array(ImportProcess), list.examples, REQUEST_ID_HEADER),
      },
    }),
  });
}

/** The three lists, each with the processes it lists. */
export const PROCESS_LIST_ENDPOINTS: readonly { endpoint: EndpointDeclaration; filter: ProcessListFilter }[] = [
  {
    filter: 'all',
    endpoint: processListEndpoint({
      name: 'all-account-import-processes',
      operationId: 'listAllAccountImportProcesses',
      summary: 'List all accounts for import',
      description:
        'Every account of the supplier, pending (data staged) or imported. For a pending account the last two fields are null.',
      examples: { mixed: { value: ex.allProcesses } },
    }),
  },
  {
    filter: 'pending',
    endpoint: processListEndpoint({
      name: 'pending-account-import-processes',
      operationId: 'listPendingAccountImportProcesses',
      summary: 'List all accounts pending import',
      description:
        'Accounts without a platform account yet: staged, being migrated, or after a failed attempt. `platform_account_number` and `account_created_at` are always null.',
      examples: { pending: { value: ex.pendingProcesses } },
    }),
  },
  {
    filter: 'imported',
    endpoint: processListEndpoint({
      name: 'imported-account-import-processes',
      operationId: 'listImportedAccountImportProcesses',
      summary: 'List all accounts that have been imported',
      description: 'Accounts that have a platform account.',
      examples: { imported: { value: ex.importedProcesses } },
    }),
  },
];
