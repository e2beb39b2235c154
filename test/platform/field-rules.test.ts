// Field rules every payload shares (issue 17 items 13 and 14), through the request schemas as the API
// parses them: text of spaces only is `blank`; identifiers with a space at either end are refused, never
// trimmed; one error per fault; dates and datetimes take the same years.
import { notesRequestSchema } from '../../shared/notes/note.schemas';
import { CreatePaymentInstructionRequest } from '../../shared/payment-instructions/payment-instruction.schemas';
import type { FieldError } from '../../shared/platform/errors';
import fc from 'fast-check';
import { IdentifierField, IsoDate, IsoDateTime, TextField } from '../../shared/platform/fields';
import { issueToFieldError } from '../../shared/platform/validation';
import { statementsRequestSchema } from '../../shared/statements/statement.schemas';
import { TransactionsRequest } from '../../shared/transactions/transaction.schemas';

/** Every error `schema` reports for `input`, as the 400 lists them (attr and code). */
function errorsOf(schema: { safeParse(input: unknown, params?: object): unknown }, input: unknown) {
  const result = schema.safeParse(input, { reportInput: true }) as {
    success: boolean;
    error?: { issues: Parameters<typeof issueToFieldError>[0][] };
  };
  if (result.success) return [];
  return result.error!.issues.map(issueToFieldError).map(({ attr, code }: FieldError) => ({ attr, code }));
}

const account = { import_supplier: 'SUPPLIER', external_account_number: 'EXT-1' };
const statement = { bill_period_from_date: '2023-01-01', bill_period_to_date: '2023-01-31', statement_id: 'S-1' };
const payment = {
  transaction_id: 'T-1',
  transaction_date: '2019-10-04',
  amount: '71.00',
  type: 'PAYMENT',
  reference: 'R-1',
};
const card = { ...account, vendor: 'STRIPE', type: 'CARD', reference: 'pm_123' };

describe('blank text and padded identifiers', () => {
  const notes = notesRequestSchema(100);
  const statements = statementsRequestSchema(100);

  it('refuses a note body of spaces only as blank, once', () => {
    expect(
      errorsOf(notes, { ...account, notes: [{ body: '   ' }, { body: '\t\n ' }, { body: ' kept as sent ' }] }),
    ).toEqual([
      { attr: 'notes.0.body', code: 'blank' },
      { attr: 'notes.1.body', code: 'blank' },
    ]);
    expect(errorsOf(notes, { ...account, notes: [{ body: '' }] })).toEqual([{ attr: 'notes.0.body', code: 'blank' }]);
  });

  it('refuses a statement_id of spaces only as blank and one with a space at either end as invalid', () => {
    expect(
      errorsOf(statements, {
        ...account,
        statements: [
          { ...statement, statement_id: '   ' },
          { ...statement, statement_id: ' pad-x' },
          { ...statement, statement_id: 'pad-x ' },
          { ...statement, statement_id: 'pad-x' },
          { ...statement, statement_id: 'in side', number: '\u00a0N-1' },
        ],
      }),
    ).toEqual([
      { attr: 'statements.0.statement_id', code: 'blank' },
      { attr: 'statements.1.statement_id', code: 'invalid' },
      { attr: 'statements.2.statement_id', code: 'invalid' },
      { attr: 'statements.4.number', code: 'invalid' },
    ]);
  });

  it('refuses padded transaction ids and codes, and blank transaction text', () => {
    const request = {
      ...account,
      transactions: [
        { ...payment, transaction_id: ' T-1' },
        { ...payment, transaction_id: 'T-2', reference: 'R-2 ' },
        { ...payment, transaction_id: 'T-3', note: '  ', reason: ' ' },
        { ...payment, transaction_id: 'T-4', note: ' spaced text is text ' },
      ],
    };
    expect(errorsOf(TransactionsRequest, request)).toEqual([
      { attr: 'transactions.0.transaction_id', code: 'invalid' },
      { attr: 'transactions.1.reference', code: 'invalid' },
      { attr: 'transactions.2.reason', code: 'blank' },
      { attr: 'transactions.2.note', code: 'blank' },
    ]);
  });

  it('refuses padded account references and external ids on every write', () => {
    const padded = { import_supplier: 'SUPPLIER ', external_account_number: ' EXT-1' };
    expect(errorsOf(notes, { ...padded, notes: [{ body: 'b', external_id: 'E-1\n' }] })).toEqual([
      { attr: 'import_supplier', code: 'invalid' },
      { attr: 'external_account_number', code: 'invalid' },
      { attr: 'notes.0.external_id', code: 'invalid' },
    ]);
    expect(errorsOf(statements, { ...padded, statements: [statement] })).toEqual([
      { attr: 'import_supplier', code: 'invalid' },
      { attr: 'external_account_number', code: 'invalid' },
    ]);
    expect(errorsOf(CreatePaymentInstructionRequest, { ...card, ...padded })).toEqual([
      { attr: 'import_supplier', code: 'invalid' },
      { attr: 'external_account_number', code: 'invalid' },
    ]);
  });

  it('agrees with String.prototype.trim on what counts as a space, for any text', () => {
    const identifier = IdentifierField(64);
    const text = TextField(64);
    const spaces = [...'\t\n\v\f\r \u00a0\u1680\u2000\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\u200b\u180e'];
    const unit = fc.oneof(fc.constantFrom(...spaces), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }));
    fc.assert(
      fc.property(fc.string({ unit, minLength: 1, maxLength: 8 }), (s) => {
        expect(identifier.safeParse(s).success).toBe(s === s.trim());
        expect(text.safeParse(s).success).toBe(s.trim() !== '');
      }),
      { numRuns: 2_000 },
    );
  });

  it('reports an over-long padded identifier once, as max_length', () => {
    expect(
      errorsOf(statements, { ...account, statements: [{ ...statement, statement_id: ` ${'x'.repeat(255)}` }] }),
    ).toEqual([{ attr: 'statements.0.statement_id', code: 'max_length' }]);
  });
});

describe('one error for one fault', () => {
  const statements = statementsRequestSchema(100);

  it('reports a malformed bill_period_from_date only at that field, not as a range at the valid other end', () => {
    for (const from of ['2023-13-01', '2024-02-30', 'January', '2023-1-1']) {
      expect(errorsOf(statements, { ...account, statements: [{ ...statement, bill_period_from_date: from }] })).toEqual(
        [{ attr: 'statements.0.bill_period_from_date', code: 'invalid' }],
      );
    }
    expect(
      errorsOf(statements, { ...account, statements: [{ ...statement, bill_period_to_date: '2022-12-31' }] }),
    ).toEqual([{ attr: 'statements.0.bill_period_to_date', code: 'start_date_later_than_end_date' }]);
  });

  it('reports a transaction date that is no day (2026-13-01) as invalid only', () => {
    const request = { ...account, transactions: [{ ...payment, transaction_date: '2026-13-01' }] };
    expect(errorsOf(TransactionsRequest, request)).toEqual([
      { attr: 'transactions.0.transaction_date', code: 'invalid' },
    ]);
  });

  it('reports a malformed line-item start date only at that field', () => {
    const charge = {
      transaction_id: 'S-1',
      transaction_date: '2019-10-01',
      amount: '44.00',
      type: 'SUPPLY_CHARGE',
      product_code: 'P',
      line_items: [
        { rate_band: 'B', start_date: '2019-99-01', end_date: '2019-11-01', number_of_units: 4, net_amount: 44 },
      ],
    };
    expect(errorsOf(TransactionsRequest, { ...account, transactions: [charge] })).toEqual([
      { attr: 'transactions.0.line_items.0.start_date', code: 'invalid' },
    ]);
  });

  it('lists reference with every other missing field of an empty payment instruction', () => {
    expect(errorsOf(CreatePaymentInstructionRequest, {})).toEqual([
      { attr: 'import_supplier', code: 'required' },
      { attr: 'external_account_number', code: 'required' },
      { attr: 'vendor', code: 'required' },
      { attr: 'type', code: 'required' },
      { attr: 'reference', code: 'required' },
    ]);
  });

  it('gives an empty or over-long reference one error', () => {
    expect(errorsOf(CreatePaymentInstructionRequest, { ...card, reference: '' })).toEqual([
      { attr: 'reference', code: 'blank' },
    ]);
    expect(errorsOf(CreatePaymentInstructionRequest, { ...card, reference: 'p'.repeat(513) })).toEqual([
      { attr: 'reference', code: 'max_length' },
    ]);
    const { reference: _, ...aliased } = card;
    expect(errorsOf(CreatePaymentInstructionRequest, { ...aliased, instruction_reference: '' })).toEqual([
      { attr: 'instruction_reference', code: 'blank' },
    ]);
    expect(errorsOf(CreatePaymentInstructionRequest, { ...card, reference: 'not-a-pm' })).toEqual([
      { attr: 'reference', code: 'invalid_vendor_reference' },
    ]);
  });
});

describe('dates and datetimes take the same years, 0100 to 9999', () => {
  it.each([
    ['0099-12-31', false],
    ['0100-01-01', true],
    ['9999-12-31', true],
  ])('date %s accepted: %s', (date, accepted) => {
    expect(IsoDate.safeParse(date).success).toBe(accepted);
  });

  it.each([
    ['0001-01-01T00:00:00Z', false],
    ['0099-12-31T23:59:59Z', false],
    ['0100-01-01T00:30:00+01:00', false],
    ['0100-01-01T00:00:00Z', true],
    ['9999-12-31T23:59:59Z', true],
    ['9999-12-31T23:00:00-05:00', false],
  ])('datetime %s accepted: %s', (datetime, accepted) => {
    expect(IsoDateTime.safeParse(datetime).success).toBe(accepted);
  });
});
