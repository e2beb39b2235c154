// POST /v1/data-import/transactions/create/ (queued on transaction.job.ts): the handler is
// api/routes/transactions.routes.ts.
import { z } from 'zod';
import { TransactionImportErrorBody, TransactionsCreated, ValidationErrorBody } from '../openapi/bodies.schemas';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { contractExample, created, QueuedHeaders, queryBoolean, queuedProse } from '../openapi/operation-parts';
import { jsonRequest, jsonResponse, REPLAYED_HEADER, REQUEST_ID_HEADER } from '../openapi/responses';
import { annotate, named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { transactionImportJob } from './transaction.job';
import { TransactionsRequest } from './transaction.schemas';

const ImportOptionsQuery = z.object({
  check_previously_added: queryBoolean(
    true,
    'Skip transactions whose `transaction_id` the account already has (`TRANSACTION_ALREADY_EXISTS`).',
  ),
  force_add_to_current_statement: queryBoolean(
    true,
    'Move a transaction dated outside the open statement period to its nearest day inside it (a description says so and a note is pinned to the account) instead of rejecting the request.',
  ),
});

const errorExamples = {
  400: {
    schema: z.union([ValidationErrorBody, TransactionImportErrorBody]),
    examples: {
      invalid_input: { summary: 'The envelope failed validation', value: ex.invalidInput.transactions },
      TRANSACTION_IMPORT_ERROR: {
        summary: 'Outside the open statement period, force off',
        value: ex.transactionOutsidePeriod,
      },
      TRANSACTION_IMPORT_ERROR_validation: { summary: 'A transaction failed validation', value: ex.transactionInvalid },
    },
  },
};

export const createTransactionsEndpoint = endpoint({
  method: 'post',
  path: `/v1/data-import/${transactionImportJob.endpoint}/`,
  operationId: 'createTransactions',
  errors: ERRORS.transactions,
  query: Object.keys(ImportOptionsQuery.shape),
  ledger: {
    subject: {
      supplier: 'import_supplier',
      account: ['external_account_number', 'account_number'],
      list: 'transactions',
      dryRun: ['dry_run'],
    },
  },
  job: transactionImportJob,
  loadShedding: 'queued-write',
  describe: (config) => {
    const max = config.MAX_ITEMS_PER_REQUEST;
    annotate(TransactionsRequest.shape.transactions, { maxItems: max });
    return {
      tag: 'Post account import',
      summary: 'Import financial transactions to an account',
      description:
        `Imports 1 to ${max} transactions, all or nothing. A malformed envelope gets the standardized 400 body; a failing ` +
        'transaction gets the `TRANSACTION_IMPORT_ERROR` body naming the first one. With `dry_run: true` everything is checked ' +
        `and answered but nothing is written. ${queuedProse(config.RESULT_WAIT_MS)}`,
      request: {
        query: ImportOptionsQuery,
        headers: QueuedHeaders,
        body: jsonRequest(named('TransactionsRequest', TransactionsRequest), contractExample(ex.transactionsRequest)),
      },
      answers: {
        201: jsonResponse(
          created('One result per submitted transaction, in order.'),
          TransactionsCreated,
          {
            added: { value: ex.transactionsCreated },
            alreadyAdded: { summary: 'The same request again', value: ex.transactionsAlreadyAdded },
          },
          { ...REQUEST_ID_HEADER, ...REPLAYED_HEADER },
        ),
      },
      errorExamples,
    };
  },
});
