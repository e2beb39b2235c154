// A worker trusts an import job of its own payload version instead of validating it again: that is
// sound only if the job's JSON form, read back, is the very import the API validated.
import { transactionImportJobPayload, toTransactionImportJson } from '../../shared/transactions/transaction.job-payload';
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
    expect(trusted.request.transactions.map(toTransactionData)).toEqual(checked.request.transactions.map(toTransactionData));
    expect(trusted.request.transactions.map((t) => t.amount.toFixed())).toEqual(checked.request.transactions.map((t) => t.amount.toFixed()));
  });

  it('validates to the same import when a worker of another version judges it again', () => {
    const judged = transactionImportJobPayload.validate(json);
    expect(judged.request.transactions.map(toTransactionData)).toEqual(checked.request.transactions.map(toTransactionData));
    expect(judged.options).toEqual(checked.options);
  });
});
