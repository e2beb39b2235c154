// Migration progress: one account's transfer status and the three process lists.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ImportProcess, TransferStatus } from './bodies.schemas';
import { ERRORS } from './error-codes';
import * as ex from './examples';
import { errorResponses, jsonResponse, REQUEST_ID_HEADER, type Examples, withErrorCodes } from './responses';
import { annotate } from './schema-registry';

const TAG = 'Migration progress';
const SECURITY = [{ Token: [] }];

const supplierCode = annotate(z.string().min(1), {
  description: 'Code of an import supplier the caller may use.',
  example: ex.SUPPLIER,
});
const externalAccountNumber = annotate(z.string().min(1), {
  description: 'Account number in the external system.',
  example: ex.EXTERNAL_ACCOUNT,
});

const LISTS: { path: string; operationId: string; summary: string; description: string; examples: Examples }[] = [
  {
    path: 'all-account-import-processes',
    operationId: 'listAllAccountImportProcesses',
    summary: 'List all accounts for import',
    description:
      'Every account of the supplier, pending (data staged) or imported. For a pending account the last two fields are null.',
    examples: { mixed: { value: ex.allProcesses } },
  },
  {
    path: 'pending-account-import-processes',
    operationId: 'listPendingAccountImportProcesses',
    summary: 'List all accounts pending import',
    description:
      'Accounts without a platform account yet: staged, being migrated, or after a failed attempt. `platform_account_number` and `account_created_at` are always null.',
    examples: { pending: { value: ex.pendingProcesses } },
  },
  {
    path: 'imported-account-import-processes',
    operationId: 'listImportedAccountImportProcesses',
    summary: 'List all accounts that have been imported',
    description: 'Accounts that have a platform account.',
    examples: { imported: { value: ex.importedProcesses } },
  },
];

export function registerProgressPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/v1/data-import/account-transfer-status/{import_supplier_code}/{external_account_number}/',
    operationId: 'getAccountTransferStatus',
    tags: [TAG],
    summary: 'Find out the status of a single account import process',
    ...withErrorCodes(
      'Answers whenever an import process exists for the pair, whether or not an account was created.',
      ERRORS.transferStatus,
    ),
    security: SECURITY,
    request: {
      params: z.object({ import_supplier_code: supplierCode, external_account_number: externalAccountNumber }),
    },
    responses: {
      200: jsonResponse(
        'The import status.',
        TransferStatus,
        { completed: { value: ex.transferStatusCompleted }, notCreatedYet: { value: ex.transferStatusUnknown } },
        REQUEST_ID_HEADER,
      ),
      ...errorResponses(ERRORS.transferStatus),
    },
  });

  for (const list of LISTS) {
    registry.registerPath({
      method: 'get',
      path: `/v1/data-import/${list.path}/{import_supplier_code}/`,
      operationId: list.operationId,
      tags: [TAG],
      summary: list.summary,
      ...withErrorCodes(
        `${list.description} A bare JSON array ordered by \`external_account_number\`, streamed (no paging); \`[]\` when there are none.`,
        ERRORS.processList,
      ),
      security: SECURITY,
      request: { params: z.object({ import_supplier_code: supplierCode }) },
      responses: {
        200: jsonResponse('The matching import processes.', z.array(ImportProcess), list.examples, REQUEST_ID_HEADER),
        ...errorResponses(ERRORS.processList),
      },
    });
  }
}
