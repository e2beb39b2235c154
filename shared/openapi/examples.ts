// Request and response examples. Requests are the published contract's example payloads with the
// import supplier ACME_ENERGY; responses are what the service answers to them (test/openapi posts
// each request example to the running app and checks the answer against the documented schema).
export const SUPPLIER = 'ACME_ENERGY';
export const EXTERNAL_ACCOUNT = 'EXTERNAL-1234';

const account = { import_supplier: SUPPLIER, external_account_number: EXTERNAL_ACCOUNT };

export const notesRequest = {
  ...account,
  notes: [
    { body: 'Some important pinned note.', is_pinned: true, unpin_at: '2020-06-01T12:00:00Z' },
    {
      created_at: '2020-02-01T12:00:00Z',
      body: 'Some important note with an attachment.',
      document_paths: [{ document_path: 'some/path/to/a/document.pdf' }],
    },
  ],
};

export const notesCreated = [
  {
    created_at: '2026-03-02T09:15:27Z',
    body: 'Some important pinned note.',
    status: 'NOTE_CREATION_SUCCESS',
    is_pinned: true,
    unpin_at: '2020-06-01T12:00:00Z',
  },
  {
    created_at: '2020-02-01T12:00:00Z',
    body: 'Some important note with an attachment.',
    status: 'NOTE_CREATION_SUCCESS',
    document_paths: [{ document_path: 'some/path/to/a/document.pdf' }],
  },
];

export const statementsRequest = {
  ...account,
  statements: [
    {
      bill_period_from_date: '2022-01-01',
      bill_period_to_date: '2022-01-31',
      statement_id: '1',
      issued_date: '2022-02-02',
      number: '1',
      gross_amount: 100,
      statement_path: 'path/to/statement-1.pdf',
    },
  ],
};

const supplyCharge = {
  transaction_id: '5',
  transaction_date: '2019-10-01',
  amount: 53.24,
  type: 'SUPPLY_CHARGE',
  display_note: 'Some customer facing note about the supply charge.',
  product_code: 'SOME-PRODUCT-CODE-4321',
  line_items: [
    {
      rate_band: 'CONSUMPTION_STANDARD',
      start_date: '2019-10-01',
      end_date: '2019-11-01',
      number_of_units: 4.0,
      net_amount: 44.0,
      price_per_unit: 11.0,
      units: [4.0, 8.0],
    },
  ],
  tax_items: [{ amount: 9.24, tax_type: 'VAT', value_taxed: 44.0, rate: 0.21, unit_type: 'PROPORTION' }],
};

const simpleTransactions = [
  {
    transaction_id: '1',
    transaction_date: '2019-10-01',
    amount: 10.0,
    type: 'CHARGE',
    reason: 'IMPORTED_CHARGE',
    display_note: 'Some customer facing note about the charge.',
    note: 'Some internal note about the charge.',
  },
  {
    transaction_id: '2',
    transaction_date: '2019-10-01',
    amount: 10.0,
    type: 'CREDIT',
    reason: 'IMPORTED_CREDIT',
    display_note: 'Some customer facing note about the credit.',
    note: 'Some internal note about the credit.',
  },
  {
    transaction_id: '3',
    transaction_date: '2019-10-01',
    amount: 10.0,
    type: 'PAYMENT',
    reason: 'ACCOUNT_CHARGE_PAYMENT',
    reference: 'payment-reference-1',
    payment_type: 'DD_REGULAR_COLLECTION',
    note: 'Some internal note about the payment.',
  },
  {
    transaction_id: '4',
    transaction_date: '2019-10-01',
    amount: 10.0,
    type: 'REPAYMENT',
    reason: 'FULL_CREDIT_REFUND',
    reference: 'repayment-reference-1',
    payment_type: 'DIRECT_CREDIT',
    note: 'Some internal note about the repayment.',
  },
];

export const transactionsRequest = { ...account, transactions: [...simpleTransactions, supplyCharge] };

export const transactionsCreated = {
  results: [
    ...simpleTransactions.map((t, i) => ({
      status: 'TRANSACTION_ADDED_TO_ACCOUNT',
      transaction_data: { ...t, amount: '10.00' },
      added_transaction_id: 101 + i,
    })),
    {
      status: 'TRANSACTION_ADDED_TO_ACCOUNT',
      transaction_data: {
        ...supplyCharge,
        amount: '53.24',
        line_items: [
          {
            ...supplyCharge.line_items[0],
            number_of_units: '4.00',
            net_amount: '44.00',
            price_per_unit: '11.00',
            units: ['4.00', '8.00'],
          },
        ],
        tax_items: [{ ...supplyCharge.tax_items[0], amount: '9.24', value_taxed: '44.00', rate: '0.21' }],
      },
      added_transaction_id: 105,
    },
  ],
};

export const transactionsAlreadyAdded = {
  results: transactionsCreated.results.map(({ transaction_data }) => ({
    status: 'TRANSACTION_ALREADY_EXISTS',
    transaction_data,
  })),
};

const latePayment = {
  transaction_id: '1',
  transaction_date: '2019-09-28',
  amount: '71.00',
  type: 'PAYMENT',
  reason: 'GENERAL_CREDIT',
  reference: 'reference 1',
  payment_type: 'DEBIT_CARD',
};

export const transactionOutsidePeriod = {
  status: 'TRANSACTION_IMPORT_ERROR',
  error_detail:
    '2019-09-28 of PAYMENT transaction "1" of 71.00 is not within the open statement period 2019-10-01 - (no end date) (OPEN) of account ' +
    'A-C90DC431. Send it with force_add_to_current_statement=true to move it into the period.',
  transaction_data: latePayment,
  errors: [
    {
      attr: 'transactions.0.transaction_date',
      code: 'transaction_outside_open_statement_period',
      detail:
        '2019-09-28 of PAYMENT transaction "1" of 71.00 is not within the open statement period 2019-10-01 - (no end date) (OPEN) of account ' +
        'A-C90DC431. Send it with force_add_to_current_statement=true to move it into the period.',
    },
  ],
};

export const transactionInvalid = {
  status: 'TRANSACTION_IMPORT_ERROR',
  error_detail:
    'Transaction 0 (transaction_id "1") failed validation: Payments and repayments must be positive amounts. (transactions.0.amount)',
  transaction_data: { ...latePayment, amount: -71 },
  errors: [
    {
      attr: 'transactions.0.amount',
      code: 'amount_must_be_positive',
      detail: 'Payments and repayments must be positive amounts.',
    },
  ],
};

export const paymentInstructionRequest = {
  ...account,
  vendor: 'STRIPE',
  reference: 'pm_1QxExampleCardReference',
  type: 'CARD',
};

export const paymentInstructionCreated = {
  platform_account_number: 'A-C90DC431',
  reference: 'pm_1QxExampleCardReference',
};

const obtainTokenQuery =
  'mutation ObtainToken($input: ObtainTokenInput!) { obtainToken(input: $input) { token payload refreshToken refreshExpiresIn } }';

export const obtainTokenWithApiKey = {
  query: obtainTokenQuery,
  variables: { input: { APIKey: 'YOUR-ORGANISATION-API-KEY' } },
};
export const obtainTokenWithRefreshToken = {
  query: obtainTokenQuery,
  variables: { input: { refreshToken: 'YOUR-REFRESH-TOKEN' } },
};

export const tokenObtained = {
  data: {
    obtainToken: {
      token: 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJvcmciOjd9.c2lnbmF0dXJl',
      payload: {
        sub: 'organisation:7',
        org: 7,
        iat: 1772442927,
        exp: 1772446527,
        iss: 'data-import-service',
        aud: 'data-import-api',
      },
      refreshToken: 'rt_8Xb2mQ0ZcN4v7KfJ1pLwYs9e',
      refreshExpiresIn: 1773047727,
    },
  },
};

export const tokenRefused = {
  errors: [
    {
      message: 'Invalid data.',
      locations: [{ line: 1, column: 51 }],
      path: ['obtainToken'],
      extensions: { code: 'invalid_api_key', errorType: 'VALIDATION' },
    },
  ],
  data: { obtainToken: null },
};

export const transferStatusCompleted = { status: 'COMPLETED', platform_account_number: 'A-12AB34CD' };
export const transferStatusUnknown = { status: 'UNKNOWN', platform_account_number: '' };

const pendingProcess = { external_account_number: '1234', platform_account_number: null, account_created_at: null };
const importedProcess = {
  external_account_number: '5678',
  platform_account_number: 'A-56785678',
  account_created_at: '2020-01-01T12:00:00Z',
};
export const allProcesses = [pendingProcess, importedProcess];
export const pendingProcesses = [pendingProcess];
export const importedProcesses = [importedProcess];

const fieldFailure = (attr: string, code: string, detail: string) => ({
  detail: `${attr}: ${detail}`,
  code: 'invalid_input',
  errors: [{ detail, code, attr }],
});

/** A validation failure of each write, as its endpoint words it. */
export const invalidInput = {
  notes: fieldFailure(
    'notes.0',
    'note_body_or_document_path_not_found',
    'A note must have a body or at least one document path.',
  ),
  statements: fieldFailure(
    'statements.0.bill_period_to_date',
    'start_date_later_than_end_date',
    'bill_period_to_date must not be before bill_period_from_date.',
  ),
  transactions: fieldFailure('transactions', 'min_length', 'Ensure this list has at least 1 items.'),
  paymentInstructions: fieldFailure(
    'instruction_reference',
    'mutually_exclusive_field_required',
    'Send either reference or the deprecated instruction_reference, not both.',
  ),
};

/** One example error body per code that has a fixed wording worth showing. */
export const errorExamples = {
  import_supplier_migration_not_ongoing: {
    detail: `Migration for import supplier ${SUPPLIER} is Paused.`,
    code: 'import_supplier_migration_not_ongoing',
    errors: [
      {
        detail: `Migration for import supplier ${SUPPLIER} is Paused; it accepts no data.`,
        code: 'import_supplier_migration_not_ongoing',
        attr: 'import_supplier',
      },
    ],
  },
  parse_error: { detail: 'The request body is not valid JSON.', code: 'parse_error', errors: [] },
  not_authenticated: { detail: 'Authentication credentials were not provided.', code: 'not_authenticated' },
  token_expired: { detail: 'The token has expired. Obtain a new one.', code: 'token_expired' },
  account_not_found: {
    detail:
      'Account not found. Check that the account has been imported (not just staged) and that the import_supplier and external_account_number are correct.',
    code: 'account_not_found',
  },
  import_supplier_not_found: { detail: 'Import supplier not found.', code: 'import_supplier_not_found' },
  request_too_large: { detail: 'The request body is too large.', code: 'request_too_large' },
  unsupported_media_type: {
    detail: 'Request bodies must be sent as application/json.',
    code: 'unsupported_media_type',
  },
  idempotency_key_reused: {
    detail: 'This Idempotency-Key was used with a different request body. Use a new key for a new request.',
    code: 'idempotency_key_reused',
  },
  rate_limited: { detail: 'Too many requests. Retry after the time in Retry-After.', code: 'rate_limited' },
  server_error: {
    detail: 'An unexpected error occurred.',
    code: 'server_error',
    error_id: '6f1c2a9e-0b7d-4e3a-9c55-2f8d7e1b4a60',
  },
  vendor_unavailable: {
    detail: 'Stripe is unavailable (503). Retry the request as it is.',
    code: 'vendor_unavailable',
  },
  temporary_failure: {
    detail: 'The transactions could not be imported because of a temporary failure. Retry the request as it is.',
    code: 'temporary_failure',
  },
  result_pending: {
    detail: 'The request is still being processed. Retry it as it is.',
    code: 'result_pending',
    request_id: '0b6f3a52-8d1e-4c7a-9f20-5e3b1d7c4a18',
  },
  queue_unavailable: {
    detail: 'The work queue is unavailable. Retry the request as it is.',
    code: 'queue_unavailable',
    request_id: '0b6f3a52-8d1e-4c7a-9f20-5e3b1d7c4a18',
  },
  payment_instruction_not_found_at_vendor: {
    detail: 'Stripe has no PaymentMethod with this reference.',
    code: 'payment_instruction_not_found_at_vendor',
    errors: [
      {
        detail: 'Stripe has no PaymentMethod with this reference.',
        code: 'payment_instruction_not_found_at_vendor',
        attr: 'reference',
      },
    ],
  },
  historical_statement_already_exists: {
    detail: 'The account already has a historical statement with statement_id "1".',
    code: 'historical_statement_already_exists',
    errors: [
      {
        detail: 'The account already has a historical statement with statement_id "1".',
        code: 'historical_statement_already_exists',
        attr: 'statements.0.statement_id',
      },
    ],
  },
};

export type ErrorExampleCode = keyof typeof errorExamples;

/** An account as a migration validates and stages it (the published contract's example, its fields trimmed to this service's subset). */
export const accountRequest = {
  ...account,
  account_type: 'DOMESTIC',
  billing_name: 'Robert Jablonski',
  billing_address1: '123 Fake Street',
  billing_postcode: 'W1F 9DE',
  operations_team_name: 'Migrations',
  customers: [
    { given_name: 'Bob', family_name: 'Jablonski', email: 'bob@jablonski.com', mobile: '07123456789', title: 'Mr' },
  ],
  supply_addresses: [
    {
      supply_address1: '123 Fake Street',
      supply_postcode: 'W1F 9DE',
      is_landlord: false,
      customer_at_supply_address_from_date: '2019-01-01',
      meter_points: [
        {
          supply_type: 'ELECTRICITY',
          identifier: '1200060176720',
          mpid: 'TENT',
          supply_start_date: '2019-01-01',
          profile_class: 1,
          ssc: '0393',
          agreements: [{ tariff_code: 'ELEC-1234-J', effective_from: '2019-08-01' }],
          meters: [
            {
              meter_serial_number: 'Z16N389556',
              installed_on: '2001-01-01',
              registers: [{ register_id: '1', tpr: '00001', number_of_digits: 5 }],
              transfer_readings: [
                { register_id: '1', reading_date: '2019-08-01', reading_value: '1000.00', reading_type: 'CUSTOMER' },
              ],
            },
          ],
        },
        {
          supply_type: 'GAS',
          identifier: '9353824109',
          mpid: 'TEN',
          shipper_mpid: 'TCL',
          supply_start_date: '2019-04-10',
          agreements: [{ tariff_code: 'GAS-1234-J', effective_from: '2019-08-01' }],
          meters: [
            {
              meter_serial_number: '54BV',
              installed_on: '2002-01-01',
              transfer_readings: [{ reading_date: '2019-08-01', reading_value: '500.00', reading_type: 'CUSTOMER' }],
            },
          ],
        },
      ],
    },
  ],
  transfer_balance: '30.00',
  last_statement_balance: '20.00',
  last_statement_closing_date: '2019-07-31',
  last_statement_issue_date: '2019-08-01',
  last_billed_to_date: '2019-08-01',
  current_statement_transactions: [
    {
      transaction_id: '1',
      transaction_date: '2019-08-04',
      amount: '10.00',
      type: 'PAYMENT',
      reason: 'ACCOUNT_CHARGE_PAYMENT',
    },
  ],
  historical_statement_transactions: [
    {
      transaction_id: '3',
      transaction_date: '2018-08-05',
      amount: '20.00',
      type: 'PAYMENT',
      reason: 'ACCOUNT_CHARGE_PAYMENT',
    },
  ],
  notes: [{ created_at: '2018-10-10T10:20:00Z', body: 'This is a note' }],
  statements: [{ statement_id: '54321', bill_period_from_date: '2019-06-01', bill_period_to_date: '2019-07-01' }],
};

export const accountStaged = { external_account_number: EXTERNAL_ACCOUNT, import_supplier_code: SUPPLIER };

export const accountAlreadyImported = {
  detail: `The account import process with the account number ${EXTERNAL_ACCOUNT} has already been imported.`,
  code: 'account_import_process_already_imported',
  errors: [
    {
      attr: 'non_field_errors',
      code: 'account_import_process_already_imported',
      detail: `The account import process with the account number ${EXTERNAL_ACCOUNT} has already been imported.`,
    },
  ],
  external_account_number: EXTERNAL_ACCOUNT,
  platform_account_number: 'A-12AB34CD',
};

export const importStatusPending = {
  status: 'PENDING',
  platform_identifier: null,
  created_at: '2025-10-07T09:00:21.179Z',
  modified_at: '2025-10-07T09:00:21.179Z',
  latest_event: { event: 'EVENT_ACCOUNT_IMPORT_PROCESS_CREATED', occurred_at: '2025-10-07T09:00:21.179Z', data: null },
  latest_error: null,
};

export const importStatusErrored = {
  status: 'ERRORED',
  platform_identifier: null,
  created_at: '2025-10-07T09:00:21.179Z',
  modified_at: '2025-10-07T09:06:38.078Z',
  latest_event: {
    event: 'EVENT_ACCOUNT_IMPORT_PROCESS_ERRORED',
    occurred_at: '2025-10-07T09:06:38.078Z',
    data: {
      code: 'tariff_code_not_found',
      detail: 'Tariff code "ELEC-1234-J" is not a product.',
      domain: 'import_process',
    },
  },
  latest_error: {
    code: 'tariff_code_not_found',
    detail: 'Tariff code "ELEC-1234-J" is not a product.',
    domain: 'import_process',
  },
};

export const accountProcessRequest = {
  import_supplier_code: SUPPLIER,
  external_account_number: 'EXTERNAL-1234',
  operations_team_name: 'Account import team',
};

export const accountProcessed = { external_account_number: 'EXTERNAL-1234', platform_account_number: 'A-E8981832' };

export const accountScheduled = {
  import_supplier_code: SUPPLIER,
  external_identifier: 'EXTERNAL-1234',
  status: 'PENDING',
  request_id: '3f0c2a9e-6b1d-4c8e-9a57-2d4e8f1b6c30',
  schedule_window_start: '2026-11-26T06:00:00.000Z',
  schedule_window_end: '2026-11-30T06:00:00.000Z',
  is_dry_run: false,
};
