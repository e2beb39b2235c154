// The four write endpoints as the fuzz properties see them: a valid payload for an account, and how a
// 400 body of that endpoint is judged.
import { CONTRACT_PRODUCT } from '../helpers/app';
import type { FuzzWorld } from './fuzz-world';
import { transactionErrorProblems, validationBodyProblems } from './error-contract';

export interface WriteEndpoint {
  name: string;
  path: string;
  /** A payload the endpoint accepts with 201 on a fresh account of the world's tenant. */
  valid(world: FuzzWorld, account: { external: string }): Record<string, unknown>;
  badRequestProblems(input: unknown, body: unknown): string[];
}

const reference = (world: FuzzWorld, account: { external: string }) => ({
  import_supplier: world.tenant.supplier,
  external_account_number: account.external,
});

export const NOTES: WriteEndpoint = {
  name: 'notes',
  path: '/v1/data-import/notes/create/',
  valid: (world, account) => ({
    ...reference(world, account),
    notes: [
      {
        body: 'a note',
        created_at: '2020-01-02T03:04:05Z',
        is_pinned: true,
        unpin_at: '2020-02-01T00:00:00Z',
        external_id: 'n-1',
      },
      { document_paths: [{ document_path: 'letters/2020/a.pdf' }] },
    ],
  }),
  badRequestProblems: validationBodyProblems,
};

export const STATEMENTS: WriteEndpoint = {
  name: 'historical-statements',
  path: '/v1/data-import/historical-statements/create/',
  valid: (world, account) => ({
    ...reference(world, account),
    statements: [
      {
        bill_period_from_date: '2019-01-01',
        bill_period_to_date: '2019-01-31',
        statement_id: 'S-1',
        issued_date: '2019-02-01',
        number: '0001',
        gross_amount: 12345,
        statement_path: 'statements/2019/01.pdf',
      },
    ],
  }),
  badRequestProblems: validationBodyProblems,
};

export const TRANSACTIONS: WriteEndpoint = {
  name: 'transactions',
  path: '/v1/data-import/transactions/create/',
  valid: (world, account) => ({
    ...reference(world, account),
    transactions: [
      {
        transaction_id: 'T-1',
        transaction_date: '2019-10-04',
        amount: 71,
        type: 'PAYMENT',
        reason: 'GENERAL_CREDIT',
        reference: 'ref 1',
        payment_type: 'DEBIT_CARD',
      },
      {
        transaction_id: 'T-2',
        transaction_date: '2019-10-01',
        amount: '53.24',
        type: 'SUPPLY_CHARGE',
        product_code: CONTRACT_PRODUCT.code,
        line_items: [
          {
            rate_band: 'CONSUMPTION_STANDARD',
            start_date: '2019-10-01',
            end_date: '2019-11-01',
            number_of_units: 4.0,
            net_amount: 44.0,
            price_per_unit: 11.0,
            units: [4.0, 8.0],
            params: { meter: 'M-1' },
          },
        ],
        tax_items: [{ amount: 9.24, tax_type: 'VAT', value_taxed: 44.0, rate: 0.21, unit_type: 'PROPORTION' }],
      },
    ],
  }),
  badRequestProblems: transactionErrorProblems,
};

export const PAYMENT_INSTRUCTIONS: WriteEndpoint = {
  name: 'payment-instruction',
  path: '/v1/data-import/payment-instruction/create/',
  valid: (world, account) => ({
    ...reference(world, account),
    vendor: 'STRIPE',
    type: 'CARD',
    reference: world.fake.addCard().id,
    valid_from: '2024-01-01',
  }),
  badRequestProblems: validationBodyProblems,
};

export const WRITE_ENDPOINTS = [NOTES, STATEMENTS, TRANSACTIONS, PAYMENT_INSTRUCTIONS];
