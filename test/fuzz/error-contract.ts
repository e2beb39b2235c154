// The 400 contract every fuzzed answer is held to: a stable code from the service's catalog, and
// each error's `attr` pointing at a real place in the input (or at a documented non-field name).

/** Every code a 400 of the data-import endpoints may carry, top-level or per field. */
export const STABLE_CODES = new Set([
  // generic field codes (shared/platform/validation.ts, DRF's names)
  'invalid_input',
  'required',
  'null',
  'blank',
  'invalid',
  'invalid_choice',
  'min_length',
  'max_length',
  'min_value',
  'max_value',
  'max_digits',
  'max_decimal_places',
  'max_whole_digits',
  'imprecise_number',
  'parse_error',
  'null_characters_not_allowed',
  'surrogate_characters_not_allowed',
  'max_depth',
  'unknown_query_parameter',
  // request level
  'invalid_idempotency_key',
  'import_supplier_migration_not_ongoing',
  // notes
  'note_body_or_document_path_not_found',
  'note_unpin_at_earlier_than_creation_date',
  'invalid_document_path',
  // statements
  'start_date_later_than_end_date',
  'duplicate_statement_ids',
  'historical_statement_already_exists',
  // transactions
  'transaction_in_future',
  'amount_must_be_positive',
  'line_item_units_must_be_two_values',
  'incorrect_line_item_net_amount',
  'conflicting_rate_band_specification',
  'duplicate_transaction_ids',
  'ledger_transaction_amount_does_not_match_with_line_item_net_amount_and_tax_amount',
  'supply_point_identifier_required_for_rate_specification_code',
  'transaction_outside_open_statement_period',
  'no_open_statement_period',
  'product_code_does_not_exist',
  'line_item_rate_not_found',
  'price_per_unit_does_not_match_rate',
  'line_items_overlap_already_charged_period',
  // payment instructions
  'mutually_exclusive_field_required',
  'ledger_code_does_not_exist',
  'account_already_has_active_instruction',
  'payment_instruction_not_found_at_vendor',
  'payment_instruction_rejected_by_vendor',
  'payment_method_not_a_card',
  'payment_method_not_attached',
  'payment_method_card_expired',
  'invalid_vendor_reference',
  'payment_method_customer_mismatch',
  'payment_method_customer_of_another_organisation',
  'stripe_customer_not_recorded',
]);

/** attrs that name no body field, documented as such (spec "Validation error object"; the header; query options). */
export const NON_FIELD_ATTRS = new Set([
  'non_field_errors',
  'Idempotency-Key',
  'check_previously_added',
  'force_add_to_current_statement',
]);

export interface FieldError {
  detail: string;
  code: string;
  attr: string;
}

/** Why `attr` does not point into `input`, or undefined when it does. */
export function attrProblem(input: unknown, error: FieldError): string | undefined {
  if (NON_FIELD_ATTRS.has(error.attr)) return undefined;
  const parts = error.attr.split('.');
  let node: unknown = input;
  for (const [i, part] of parts.entries()) {
    const last = i === parts.length - 1;
    const container = node !== null && typeof node === 'object';
    const exists =
      container &&
      (Array.isArray(node)
        ? /^\d+$/.test(part) && Number(part) < node.length
        : Object.prototype.hasOwnProperty.call(node, part));
    // A missing field is named by where it belongs: its parent must exist.
    if (!exists)
      return last && container && error.code === 'required' ? undefined : `"${error.attr}" is not in the input`;
    node = (node as Record<string, unknown>)[part];
  }
  return undefined;
}

/** Problems with a standardized 400 body `{detail, code, errors: [{detail, code, attr}]}`. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function validationBodyProblems(input: unknown, body: any): string[] {
  const problems: string[] = [];
  if (typeof body?.detail !== 'string') problems.push('detail is not a string');
  if (!STABLE_CODES.has(body?.code)) problems.push(`code ${JSON.stringify(body?.code)} is not in the catalog`);
  if (!Array.isArray(body?.errors)) return [...problems, 'errors is not an array'];
  problems.push(...fieldErrorProblems(input, body.errors as FieldError[], body?.code === 'parse_error'));
  return problems;
}

/** Problems with the transactions endpoint's own 400 body (spec: Endpoints → transactions/create). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function transactionErrorProblems(input: any, body: any): string[] {
  if (body?.status !== 'TRANSACTION_IMPORT_ERROR') return validationBodyProblems(input, body);
  const problems: string[] = [];
  if (typeof body.error_detail !== 'string') problems.push('error_detail is not a string');
  const errors = (body.errors ?? []) as FieldError[];
  if (errors.length === 0) problems.push('no field errors');
  problems.push(...fieldErrorProblems(input, errors, false));
  const index = Number(/^transactions\.(\d+)/.exec(errors[0]?.attr ?? '')?.[1]);
  // transaction_data is the failing transaction as submitted (or, rejected by the worker, as checked).
  if (Number.isInteger(index) && body.transaction_data === undefined) problems.push('transaction_data is missing');
  // Every failing transaction is listed, the first (the one on top) first, then in request order.
  const indexes = errors.map((e) => Number(/^transactions\.(\d+)/.exec(e.attr)?.[1]));
  if (Number.isInteger(index) && indexes.some((i, n) => !Number.isInteger(i) || (n > 0 && i < indexes[n - 1]!))) {
    problems.push('errors are not transactions in request order');
  }
  return problems;
}

function fieldErrorProblems(input: unknown, errors: FieldError[], parseError: boolean): string[] {
  return errors.flatMap((e) => {
    const problems: string[] = [];
    if (typeof e.detail !== 'string' || typeof e.attr !== 'string')
      problems.push(`malformed error ${JSON.stringify(e)}`);
    if (!STABLE_CODES.has(e.code)) problems.push(`field code ${JSON.stringify(e.code)} is not in the catalog`);
    const where = parseError ? undefined : attrProblem(input, e);
    if (where) problems.push(`${where} (code ${e.code})`);
    return problems;
  });
}
