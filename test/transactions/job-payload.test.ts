// A worker trusts an import job of its own payload version instead of validating it again: that is
// sound only if the job's JSON form, read back, is the very import the API validated.
import {
  compactTransactionsAnswer,
  transactionImportJobPayload,
  toTransactionImportJson,
  type TransactionImportJson,
} from '../../shared/transactions/transaction.job-payload';
import { toTransactionData } from '../../shared/transactions/transaction-data';
import { parseTransactionImport } from '../../shared/transactions/transaction.validation';
import { payment, supplyCharge } from './transactions.fixture';

describe('the transaction import job payload', () => {
  const request = {
    import_supplier: 'ACME',
    external_account_number: 'EXT-1',
    dry_run: false,
    transactions: [
      payment('p-1', { amount: '12.500', note: 'kept', unknown_field: 'dropped' }),
      supplyCharge('s-1'),
      { transaction_id: 'c-1', transaction_date: '2019-10-02', amount: 0.1, type: 'CREDIT', reason: 'GOODWILL' },
    ],
    surprise: 'dropped',
  };
  const checked = parseTransactionImport({ options: { check_previously_added: 'false' }, request });
  const json = JSON.parse(JSON.stringify(toTransactionImportJson(checked))) as unknown;

  it('carries no field the schemas do not know', () => {
    expect(JSON.stringify(json)).not.toContain('dropped');
  });

  it('reads back, trusted, as the import the API validated: same options, echoes and amounts', () => {
    const trusted = transactionImportJobPayload.fromJob(json);
    expect(trusted.options).toEqual(checked.options);
    expect(trusted.request.transactions.map(toTransactionData)).toEqual(
      checked.request.transactions.map(toTransactionData),
    );
    expect(trusted.request.transactions.map((t) => t.amount.toFixed())).toEqual(
      checked.request.transactions.map((t) => t.amount.toFixed()),
    );
    // Field by field, Decimals included (a line item's price_per_unit read back as a string once failed
    // every supply charge in the worker).
    expect(trusted.request).toEqual(checked.request);
    // The echoes it carries are the ones the worker would otherwise build again.
    expect(trusted.echoes).toEqual(checked.request.transactions.map(toTransactionData));
  });

  it('validates to the same import when a worker of another version judges it again', () => {
    const judged = transactionImportJobPayload.validate(json);
    expect(judged.request.transactions.map(toTransactionData)).toEqual(
      checked.request.transactions.map(toTransactionData),
    );
    expect(judged.options).toEqual(checked.options);
  });

  it("rebuilds a 201 from its compact event form and the request's echo, exactly as stored", () => {
    const echoes = (json as TransactionImportJson).request.transactions;
    const stored = {
      status: 201,
      body: {
        results: [
          { status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction_data: echoes[0], added_transaction_id: '41' },
          { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: echoes[1] },
          { status: 'TRANSACTION_ADDED_TO_ACCOUNT', transaction_data: echoes[2], added_transaction_id: '42' },
        ],
      },
    };
    const compact = compactTransactionsAnswer.compact(stored);

    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(stored).length / 4);
    expect(JSON.stringify(compactTransactionsAnswer.expand(JSON.parse(JSON.stringify(compact)), json))).toBe(
      JSON.stringify(stored),
    );
    expect(compactTransactionsAnswer.compact({ status: 400, body: { code: 'x' } })).toBeUndefined();
    expect(compactTransactionsAnswer.expand({ status: 201, items: [{ added: true }] }, json)).toBeUndefined();
  });
});
