// Every error code each operation can answer, by HTTP status, with when it happens. Collected from
// the code that raises them (AppError subclasses, ValidationError.single, refinements' params.code,
// api/error-middleware.ts, api/rate-limits.ts, the workers' stored answers); test/openapi checks
// that every code literal in api/, shared/ and worker/ is listed somewhere here.

/** status → code → when. */
export type ErrorCatalogue = Record<number, Record<string, string>>;

export interface OperationErrors {
  statuses: ErrorCatalogue;
  /** Codes that appear in `errors[].code` of a 400 body, with when. */
  fieldCodes?: Record<string, string>;
}

const authenticated: ErrorCatalogue = {
  401: {
    not_authenticated: 'No `Authorization` header.',
    authentication_failed:
      "The header or the token is malformed, forged or signed for another service, or the token's API key was revoked or its organisation disabled.",
    token_expired: 'The token has expired: obtain a new one (a refresh token works).',
  },
  429: { rate_limited: "Over the organisation's requests per minute; wait for `Retry-After` seconds." },
  500: { server_error: 'Unexpected error; the body carries an `error_id` to quote.' },
  503: {
    database_busy:
      'No database connection came free within `DB_ACQUIRE_TIMEOUT_MS`; nothing was done. Retry as it is after `Retry-After`.',
    database_unavailable:
      'The database or its pooler refused or dropped the connection (too many connections, a restart). Retry as it is after `Retry-After`; a write with the same `Idempotency-Key`, which replays it if it was stored.',
    write_outcome_unknown:
      'The connection was lost while the write was committing: it may or may not be stored. Resend it as it is (same `Idempotency-Key`) after `Retry-After`: a stored write is answered again, not repeated.',
  },
};

/** Load shedding of requests that hold a resource long (streamed lists, queued writes): README "Load shedding". */
const concurrencyLimited: ErrorCatalogue = {
  429: {
    too_many_concurrent_requests:
      'The organisation already has its allowed number of these requests running in this process; nothing was done. Retry after `Retry-After`.',
  },
  503: {
    server_busy:
      'The process is at its limit of these requests for all organisations; nothing was done. Retry after `Retry-After`.',
  },
};

const jsonBody: ErrorCatalogue = {
  400: {
    parse_error: 'The body is not valid JSON (`errors` is empty).',
    max_depth: 'A value is nested more than 64 levels deep (refused before any field is checked).',
    imprecise_number:
      'A JSON number does not keep its value when read as a double (`1e-400`, `1e400`, digits past a double): send it as a decimal string.',
  },
  413: { request_too_large: 'The body is over the configured size limit.' },
  415: {
    unsupported_media_type:
      'The body is not `application/json`, or is in a charset or encoding the parser does not read.',
  },
};

const writable: ErrorCatalogue = {
  400: {
    invalid_input: 'One or more fields failed validation; see `errors`.',
    import_supplier_migration_not_ongoing: "The import supplier's migration is Paused or Complete: it accepts no data.",
  },
  404: {
    account_not_found:
      "No imported account for `import_supplier` + `external_account_number` visible to the caller (staged only, wrong codes, or another organisation's).",
  },
};

const pending = {
  result_pending:
    "The work is queued or running but did not finish within the wait. Poll `Location` (the request's `request_id`) for the answer, or retry with the same `Idempotency-Key`, after `Retry-After`.",
};

const queued: ErrorCatalogue = {
  400: {
    invalid_idempotency_key: 'The `Idempotency-Key` header is not 1 to 255 printable ASCII characters.',
    invalid_run_id: 'The `Data-Import-Run-Id` header is not 1 to 64 printable ASCII characters.',
  },
  422: { idempotency_key_reused: 'This `Idempotency-Key` was used in the last 24 h with a different request.' },
  503: {
    ...pending,
    queue_unavailable:
      'The work queue could not be reached; nothing was queued (`Location` answers this same 503). Retry the request as it is.',
  },
};

const fieldCodes: Record<string, string> = {
  required: 'A required field is missing.',
  null: 'A field is null that may not be.',
  blank: 'A string is empty.',
  invalid: 'Wrong type or format (dates, datetimes, numbers).',
  invalid_choice: 'Not one of the allowed values.',
  min_length: 'A string or list is too short.',
  max_length:
    'A string or list is too long (lists: more items than the per-request limit; decimal strings: over 64 characters).',
  min_value: 'A number is too small.',
  max_value: 'A number is too large.',
  null_characters_not_allowed: 'A string or key holds a NUL character, which the database cannot store.',
  surrogate_characters_not_allowed: 'A string or key holds a lone UTF-16 surrogate, which is not Unicode text.',
  max_depth: 'Values are nested more than 64 levels deep.',
  unknown_query_parameter:
    'A query parameter the endpoint does not take (`attr` is its name); options of the body, such as `dry_run`, go in the body.',
  imprecise_number:
    'A JSON number does not keep its value when read as a double (`1e-400`, `1e400`, digits past a double): send it as a decimal string.',
};

const decimalCodes: Record<string, string> = {
  max_digits: 'A decimal has more digits in total than its format allows.',
  max_decimal_places: 'A decimal has more places after the point than its format allows.',
  max_whole_digits: 'A decimal has more digits before the point than its format allows.',
  imprecise_number:
    'A decimal sent as a JSON number has more than 15 significant digits, or does not keep its value when read as a double (`1e-400`): send it as a decimal string.',
};

const accountAlias: Record<string, string> = {
  mutually_exclusive_field_required:
    'Both `external_account_number` and its deprecated alias `account_number` were sent, with different values.',
};

function merge(...catalogues: ErrorCatalogue[]): ErrorCatalogue {
  const merged: ErrorCatalogue = {};
  for (const catalogue of catalogues) {
    for (const [status, codes] of Object.entries(catalogue))
      merged[Number(status)] = { ...merged[Number(status)], ...codes };
  }
  return merged;
}

/** The field codes of an account's validation (validate-account, create-or-update, v2 validate). */
const accountFieldCodes: Record<string, string> = {
  ...fieldCodes,
  ...decimalCodes,
  field_not_supported:
    'A field the published contract names but this service does not support; it is refused, never dropped.',
  invalid_postcode: '`billing_postcode` or `supply_postcode` is not a UK postcode.',
  billing_email_not_valid: '`billing_email` is not an e-mail address.',
  invalid_phone_number: 'A customer `mobile` or `landline` is not a UK phone number.',
  operations_team_name_does_not_exist: 'No operations team of this name (the platform team sets them up).',
  repeated_values_for_unique_customer_detail_namespace: 'Two customers of the account have the same `email`.',
  customer_with_unknown_occupier: 'Customers were sent with `unknown_occupier: true`.',
  invalid_supply_point_identifier:
    'An electricity meter point is not a 13-digit MPAN core with a valid check digit, or a gas one not a 6 to 10-digit MPRN with valid check digits.',
  meter_with_duplicate_register_ids: 'A meter has two registers with the same `register_id`.',
  duplicate_meter_points_provided: 'A meter point appears twice at one supply address.',
  duplicate_meter_points_on_different_supply_addresses_provided: 'A meter point appears at two supply addresses.',
  duplicate_supply_addresses_found: 'Two supply addresses have the same lines and postcode.',
  transfer_reading_dates_must_match_last_billed_to_date: 'A transfer reading is not dated `last_billed_to_date`.',
  billed_reading_after_last_billed_to_date: 'A billed reading is dated after `last_billed_to_date`.',
  no_reading_on_removed_on: 'A removed meter has no reading on its `removed_on` day.',
  gaps_or_overlaps_in_agreement_dates: "A meter point's agreements overlap.",
  start_date_later_than_end_date: 'A period (agreement, supply, payment schedule, statement) ends before it starts.',
  tariff_code_not_found: "An agreement's `tariff_code` is not in the product catalogue.",
  tariff_type_does_not_match_meter_point_type:
    "An agreement's product supplies the other fuel (its `supply_type`) than its meter point.",
  ledger_balances_not_equal_to_transfer_balance: "The ledgers' `ledger_balance` do not add up to `transfer_balance`.",
  zero_payment_schedule_amount: 'A payment schedule has an `amount` of 0.',
  multiple_open_ended_payment_schedules: 'More than one payment schedule has no `end_date`.',
  payment_schedule_date_overlaps: 'A payment schedule starts before the previous one (by `start_date`) ends.',
  payment_schedule_date_gaps: 'A payment schedule starts more than a day after the previous one ends.',
  start_date_same_as_end_date: 'A period (agreement, supply, payment schedule) ends on the day it starts.',
  date_in_future: '`last_billed_to_date` or a reading is dated after tomorrow (UTC).',
  future_supply_start_date: "A meter point's `supply_start_date` is after tomorrow (UTC).",
  occupier_account_with_multiple_supply_addresses: 'An unknown-occupier account has more than one supply address.',
  contact_details_for_occupier: 'An unknown-occupier account has a `billing_email`.',
  customer_may_not_be_named_the_occupier: 'A customer is named "Occupier" or "The Occupier".',
  customer_given_name_required: 'A customer of an account that is not `BUSINESS` has no (or a blank) `given_name`.',
  customer_family_name_required: 'A customer of an account that is not `BUSINESS` has no (or a blank) `family_name`.',
  current_statement_transaction_before_last_billed_to_date:
    'Without `last_statement_closing_date`, a current statement transaction is dated before `last_billed_to_date`.',
  no_register_id_for_reading: 'A transfer reading of a meter that lists registers names no `register_id`.',
  reading_without_register_id: 'A historical reading of a meter that lists registers names no `register_id`.',
  reading_register_id_not_recognised: "A transfer reading's `register_id` is not one of its meter's registers.",
  historical_reading_register_id_not_recognised:
    "A historical reading's `register_id` is not one of its meter's registers.",
  multiple_transfer_readings_for_register: 'A register has more than one transfer reading.',
  missing_transfer_reading_for_register:
    'A settlement register of a meter in place has no transfer reading (the account has `last_billed_to_date`).',
  active_gas_meter_without_transfer_reading:
    'A gas meter in place has no transfer reading (the account has `last_billed_to_date`).',
  agreement_start_date_before_supply_start_date: "An agreement starts before its meter point's `supply_start_date`.",
  meterpoint_with_agreement_not_on_supply: "An agreement starts after its meter point's `supply_end_date`.",
  no_agreement_covering_last_billed_to_date:
    'A meter point on supply on `last_billed_to_date` has agreements, none of them covering that day.',
  supply_point_already_on_live_account:
    'Another live account of the same import supplier already supplies this meter point.',
  metadata_has_duplicate_keys: 'A metadata key appears twice.',
  duplicate_transaction_ids: 'A `transaction_id` appears twice among the current and historical transactions.',
  historical_statement_transactions_without_last_statement_closing_date_or_last_billed_to_date:
    'Historical statement transactions were sent without `last_statement_closing_date`.',
  historical_statement_transaction_after_last_statement_closing_date:
    'A historical statement transaction is dated after `last_statement_closing_date`.',
  current_statement_transaction_before_current_statement_opening_date:
    'A current statement transaction is dated on or before `last_statement_closing_date` (the open period begins the day after).',
  last_statement_issued_before_closing_date: '`last_statement_issue_date` is before `last_statement_closing_date`.',
  fields_are_mutually_exclusive: 'The ledger was sent both at the top level and in `ledgers`.',
  note_body_or_document_path_not_found: 'A note has neither `body` nor a document path.',
  note_unpin_at_earlier_than_creation_date: "A note's `unpin_at` is earlier than its `created_at`.",
  invalid_document_path: 'A note or statement document path is not a valid relative path.',
  amount_must_be_positive: 'A PAYMENT or REPAYMENT amount is zero or negative.',
  transaction_in_future: 'A `transaction_date` has not begun anywhere on Earth yet.',
  incorrect_line_item_net_amount: "A line item's `net_amount` is not `price_per_unit` × `number_of_units`.",
  conflicting_rate_band_specification: 'A line item gives more than one rate band specification.',
  line_item_units_must_be_two_values: "A line item's `units` is not exactly the start and end readings.",
  ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount:
    "A SUPPLY_CHARGE's `amount` is not the sum of its line items' net amounts and tax amounts.",
  supply_point_identifier_required_for_rate_specification_code:
    'A line item uses `rate_specification_code` without a `supply_point_identifier`.',
};

export const ERRORS = {
  notes: {
    statuses: merge(writable, jsonBody, authenticated),
    fieldCodes: {
      ...fieldCodes,
      ...accountAlias,
      note_body_or_document_path_not_found: 'A note has neither `body` nor a document path.',
      note_unpin_at_earlier_than_creation_date: '`unpin_at` is earlier than the `created_at` sent.',
      invalid_document_path:
        'A document path is absolute, has empty segments or a segment of dots only (also percent-encoded or look-alike dots), backslashes, encoded separators or control characters, or is over 1024 characters.',
    },
  },
  statements: {
    statuses: merge(
      writable,
      {
        400: {
          historical_statement_already_exists:
            'The account already has a statement with one of these `statement_id`s; nothing was stored.',
        },
      },
      jsonBody,
      authenticated,
    ),
    fieldCodes: {
      ...fieldCodes,
      start_date_later_than_end_date: '`bill_period_to_date` is before `bill_period_from_date`.',
      duplicate_statement_ids: 'A `statement_id` appears twice in the request.',
      historical_statement_already_exists: 'The account already has this `statement_id`.',
      invalid_document_path: '`statement_path` is not a valid relative path.',
    },
  },
  transactions: {
    statuses: merge(
      {
        400: {
          invalid_input:
            'The envelope failed validation (account reference, `transactions` missing, empty or too long, query options): standardized body.',
          TRANSACTION_IMPORT_ERROR:
            'Transactions failed validation, or the import refused them (outside the open statement period without force, no open period, the product catalogue, an already charged period): the `TransactionImportError` body naming the first and listing every one in `errors`; nothing was imported.',
          import_supplier_migration_not_ongoing: writable[400]!.import_supplier_migration_not_ongoing!,
        },
        404: writable[404]!,
        500: {
          temporary_failure:
            'The import failed on a temporary fault after every retry; nothing was imported. Retry as it is.',
        },
      },
      queued,
      concurrencyLimited,
      jsonBody,
      authenticated,
    ),
    fieldCodes: {
      ...fieldCodes,
      ...decimalCodes,
      ...accountAlias,
      amount_must_be_positive: 'A PAYMENT or REPAYMENT amount is zero or negative.',
      transaction_in_future: '`transaction_date` has not begun anywhere on Earth yet.',
      duplicate_transaction_ids: 'A `transaction_id` appears twice in the request.',
      start_date_later_than_end_date: 'A line item ends before it starts.',
      incorrect_line_item_net_amount:
        '`net_amount` is not `price_per_unit` × `number_of_units` (rounded to its places, half either way).',
      conflicting_rate_band_specification:
        'A line item gives more than one of `rate_band`, `rate_specification_code`, `time_series_specification_code`.',
      line_item_units_must_be_two_values: '`units` is not exactly the start and end readings.',
      ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount:
        "A SUPPLY_CHARGE's `amount` is not the sum of its line items' net amounts and its tax amounts.",
      supply_point_identifier_required_for_rate_specification_code:
        'A line item uses `rate_specification_code` without a `supply_point_identifier`.',
      transaction_outside_open_statement_period:
        'Dated outside the open statement period and `force_add_to_current_statement=false`.',
      no_open_statement_period: 'The account has no open statement period to add to.',
      product_code_does_not_exist: "A SUPPLY_CHARGE's `product_code` is not in the product catalogue.",
      line_item_rate_not_found:
        'A line item\'s `rate_band` has no rate of the product covering its whole period (the contract\'s "Validates supply charge line item rate", which lists no code).',
      price_per_unit_does_not_match_rate:
        "A line item's `price_per_unit` differs from the product's rate for its band and period (the contract's price check, which lists no code).",
      line_items_overlap_already_charged_period:
        "A line item's period overlaps one already charged on the account for the same supply point (an earlier transaction of the request counts).",
    },
  },
  paymentInstructions: {
    statuses: merge(
      writable,
      {
        400: {
          account_already_has_active_instruction: 'The account already has another active instruction.',
          payment_instruction_not_found_at_vendor:
            'The vendor has no instruction with this reference. Do not retry as it is.',
          payment_instruction_rejected_by_vendor: 'The vendor refused the reference. Do not retry as it is.',
          payment_method_not_a_card: 'The vendor holds the reference, but not as a card.',
          payment_method_not_attached: 'The card is not attached to a customer at the vendor, so it cannot be reused.',
          payment_method_card_expired: 'The card has expired.',
          payment_method_customer_mismatch:
            'The PaymentMethod is attached to another Stripe customer than the one recorded for the account.',
          payment_method_customer_of_another_organisation:
            "The PaymentMethod's Stripe customer is bound to another organisation (the first whose instruction used it).",
          stripe_customer_not_recorded:
            'The service requires a recorded Stripe customer (STRIPE_REQUIRE_RECORDED_CUSTOMER) and the account has none.',
          vendor_not_configured:
            "The service was not given the vendor's key (STRIPE_SECRET_KEY): answered at once, the vendor not asked, nothing written. Not an outage: do not retry until the platform team sets the key.",
        },
        500: {
          vendor_unavailable:
            'The vendor could not be reached, timed out or failed, on every retry. Retry the request as it is.',
          instruction_changed: "The account's instructions changed while the request ran. Retry the request as it is.",
        },
      },
      queued,
      concurrencyLimited,
      jsonBody,
      authenticated,
    ),
    fieldCodes: {
      ...fieldCodes,
      invalid_vendor_reference:
        "The reference does not have the vendor's shape (STRIPE: a PaymentMethod id, `pm_` and letters, digits and underscores, at most 255 characters); the vendor was not asked.",
      mutually_exclusive_field_required: 'Both `reference` and the deprecated `instruction_reference` were sent.',
      ledger_code_does_not_exist: '`ledger_code` was sent; this service knows no ledger codes.',
      account_already_has_active_instruction: 'Reported on `non_field_errors`.',
      payment_instruction_not_found_at_vendor: 'Reported on `reference`.',
      payment_instruction_rejected_by_vendor: 'Reported on `reference`.',
      payment_method_not_a_card: 'Reported on `reference`.',
      payment_method_not_attached: 'Reported on `reference`.',
      payment_method_card_expired: 'Reported on `reference`.',
      payment_method_customer_mismatch: 'Reported on `reference`.',
      payment_method_customer_of_another_organisation: 'Reported on `reference`.',
      stripe_customer_not_recorded: 'Reported on `non_field_errors`.',
      vendor_not_configured: 'Reported on `vendor`.',
    },
  },
  requestAnswer: {
    statuses: merge(
      {
        404: {
          request_not_found:
            "No request with this id visible to the caller (unknown, another organisation's, or its answer purged 24 h after it finished).",
        },
        503: pending,
      },
      authenticated,
    ),
  },
  runSummary: {
    statuses: merge(
      {
        400: {
          invalid_run_id: 'The run id in the path is not 1 to 64 printable ASCII characters.',
          invalid_cursor: '`accounts_after` is not a `next_cursor` this endpoint answered.',
          unknown_query_parameter: 'A query parameter other than `accounts_after`.',
        },
        404: {
          run_not_found:
            "No write of the caller's organisation carried this `Data-Import-Run-Id` (unknown, another organisation's, or past the ledger's retention).",
        },
      },
      authenticated,
    ),
  },
  runDeclaration: {
    statuses: merge(
      {
        400: {
          invalid_run_id: 'The run id in the path is not 1 to 64 printable ASCII characters.',
          invalid_input: 'The declaration failed validation (kind, items, files); see `errors`.',
        },
      },
      jsonBody,
      authenticated,
    ),
  },
  stageAccount: {
    statuses: merge(
      {
        400: {
          invalid_input: 'The account failed validation; see `errors`.',
          import_supplier_migration_not_ongoing: writable[400]!.import_supplier_migration_not_ongoing!,
          account_import_process_already_imported:
            'The account was already created: the body carries its `platform_account_number`; nothing was staged.',
        },
        404: { import_supplier_not_found: 'No import supplier with this code visible to the caller.' },
        409: {
          account_import_process_in_progress:
            'A creation job holds the account; nothing was staged. Follow its status.',
        },
        413: { account_too_large: 'More than 5,000 readings, transactions, notes and statements in one account.' },
      },
      jsonBody,
      authenticated,
    ),
    fieldCodes: accountFieldCodes,
  },
  processAccount: {
    statuses: merge(
      {
        400: {
          invalid_input:
            'The body failed validation, or the staged account no longer passes (a product removed, a meter point taken); see `errors`.',
          import_supplier_migration_not_ongoing: writable[400]!.import_supplier_migration_not_ongoing!,
          account_import_process_already_imported:
            'The account was already created: the body carries its `platform_account_number`.',
          account_import_process_cancelled: 'An operator cancelled the creation; nothing was created.',
          import_process_does_not_exist: 'Nothing is staged for this supplier and external account number.',
          payment_method_customer_of_another_organisation:
            "A STRIPE instruction's Stripe customer is bound to another organisation; reported at the instruction's `reference`.",
          stripe_customer_not_recorded:
            'The service requires a recorded Stripe customer (STRIPE_REQUIRE_RECORDED_CUSTOMER) and a new account has none.',
        },
        404: { import_supplier_not_found: 'No import supplier with this code visible to the caller.' },
        409: { account_import_process_in_progress: 'Another creation job holds the account. Follow its status.' },
        429: {
          too_many_concurrent_creations:
            'The organisation has 64 process calls waiting for their accounts. Retry after `Retry-After`.',
        },
        500: {
          temporary_failure:
            'The account could not be created because of a temporary failure, on every retry. Retry the request as it is.',
        },
      },
      queued,
      concurrencyLimited,
      jsonBody,
      authenticated,
    ),
    fieldCodes: accountFieldCodes,
  },
  scheduleAccount: {
    statuses: merge(
      {
        400: {
          invalid_input: 'The account or the task parameters failed validation; see `errors`.',
          import_supplier_migration_not_ongoing: writable[400]!.import_supplier_migration_not_ongoing!,
          account_import_process_already_imported:
            'The account was already created: the body carries its `platform_account_number`; nothing was scheduled.',
        },
        404: { import_supplier_not_found: 'No import supplier with this code visible to the caller.' },
        409: {
          account_import_process_in_progress:
            'A creation job holds the account and this schedule carries other data; nothing was scheduled.',
        },
        413: { account_too_large: 'More than 5,000 readings, transactions, notes and statements in one account.' },
        429: {
          too_many_scheduled_creations:
            'The organisation has 2,000 schedules not yet answered. Retry after `Retry-After`.',
        },
      },
      jsonBody,
      authenticated,
    ),
    fieldCodes: {
      ...accountFieldCodes,
      schedule_window_end_too_far_in_future: '`task_params.schedule_window_end` is more than 4 days from now.',
      invalid_schedule_window: 'The schedule window ends before it starts, or has already ended.',
      schedule_window_passed:
        'Not an answer of this request: the `latest_error` of a scheduled creation whose window ended before a worker started it (the v2 status endpoint).',
      schedule_window_start_in_past: '`task_params.schedule_window_start` is more than a minute in the past.',
      creation_interrupted:
        'Not an answer of this request: the `latest_error` of a creation whose worker stopped before it finished; nothing was created.',
      account_import_process_rescheduled:
        'Not an answer of this request: the answer of an earlier schedule (GET requests/<id>/) that a later one replaced.',
    },
  },
  transferStatus: {
    statuses: merge(
      {
        404: {
          account_not_found: 'No import process for this supplier and external account number visible to the caller.',
        },
      },
      authenticated,
    ),
  },
  processList: {
    statuses: merge(
      { 404: { import_supplier_not_found: 'No import supplier with this code visible to the caller.' } },
      concurrencyLimited,
      authenticated,
    ),
  },
  validateAccount: {
    statuses: merge(
      {
        400: {
          invalid_input: 'The account failed validation; see `errors`.',
          account_import_process_already_imported:
            'The account is already imported: the body carries its `platform_account_number`.',
        },
        404: { import_supplier_not_found: 'No import supplier with this code visible to the caller.' },
        413: { account_too_large: 'More than 5,000 readings, transactions, notes and statements in one account.' },
      },
      jsonBody,
      authenticated,
    ),
    fieldCodes: accountFieldCodes,
  },
  importStatus: {
    statuses: merge(
      {
        404: {
          account_not_found:
            'No account import process for this supplier and external identifier visible to the caller.',
        },
      },
      authenticated,
    ),
  },
  obtainToken: {
    statuses: merge(jsonBody, {
      429: {
        rate_limited: 'Over the token requests per minute from this client address; wait for `Retry-After` seconds.',
      },
      500: authenticated[500]!,
      503: {
        database_unavailable:
          'The database refused or dropped the connection: no token was issued. Retry the same mutation after `Retry-After` (the body is a GraphQL answer whose `errors[].extensions.code` is `database_unavailable`).',
      },
    }),
  },
  metrics: {
    statuses: {
      401: {
        not_authenticated: 'No `Authorization: Bearer <METRICS_TOKEN>`, a wrong one, or no METRICS_TOKEN configured.',
      },
    },
  },
  none: { statuses: {} },
} satisfies Record<string, OperationErrors>;

/** Codes of `errors[].extensions.code` in obtainToken's GraphQL answers (HTTP 200). */
export const GRAPHQL_ERROR_CODES: Record<string, string> = {
  invalid_input: 'Not exactly one of `APIKey` and `refreshToken` was given.',
  invalid_api_key:
    'The API key is unknown, revoked or malformed, or its organisation is disabled (one answer for all four).',
  invalid_refresh_token:
    'The refresh token is unknown or revoked, or its API key is revoked or its organisation disabled.',
  refresh_token_reused: 'The refresh token was already used: every token issued from it is now revoked.',
  refresh_token_expired: 'The refresh token has expired: sign in with the API key again.',
  too_many_token_requests:
    'The document calls `obtainToken` more than once (aliases and fragments count): send one request per token.',
  document_too_large: 'The GraphQL document is over 4,096 characters or 512 tokens.',
  document_too_deep: 'Selections in the GraphQL document nest more than 4 levels.',
  server_error: 'Unexpected error; nothing internal is disclosed.',
  database_unavailable: 'The database refused or dropped the connection (HTTP 503 with `Retry-After`): retry.',
};

/** Codes any path can answer, whatever the operation. */
export const GLOBAL_ERRORS: ErrorCatalogue = {
  404: { route_not_found: 'No route for this method and path (paths end with `/`; the trailing slash is optional).' },
};

/** The operation description's table, and the `x-error-codes` extension (status → codes). */
export function describeErrors(errors: OperationErrors): { table: string; extension: Record<string, string[]> } {
  const rows = Object.entries(errors.statuses).flatMap(([status, codes]) =>
    Object.entries(codes).map(([code, when]) => `| ${status} | \`${code}\` | ${when} |`),
  );
  const fieldRows = Object.entries(errors.fieldCodes ?? {}).map(([code, when]) => `| \`${code}\` | ${when} |`);
  const table = [
    rows.length ? ['**Error codes**', '', '| Status | Code | When |', '|---|---|---|', ...rows].join('\n') : '',
    fieldRows.length
      ? ['**Field error codes** (`errors[].code`)', '', '| Code | When |', '|---|---|', ...fieldRows].join('\n')
      : '',
  ]
    .filter(Boolean)
    .join('\n\n');
  const extension = Object.fromEntries(
    Object.entries(errors.statuses).map(([status, codes]) => [status, Object.keys(codes)]),
  );
  return { table, extension };
}

/**
 * Every code this catalogue lists (request-level and field-level): the fixed set the refusal metrics
 * label by (api/refusal-labels.ts), so a label never holds what a client sent.
 */
export const KNOWN_ERROR_CODES: ReadonlySet<string> = new Set(
  [...Object.values(ERRORS), { statuses: GLOBAL_ERRORS }].flatMap((op: OperationErrors) => [
    ...Object.values(op.statuses).flatMap((codes) => Object.keys(codes)),
    ...Object.keys(op.fieldCodes ?? {}),
  ]),
);
