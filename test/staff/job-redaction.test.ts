import { REDACTED, redactJobValue } from '../../shared/staff/job-redaction';
import { csvCell, csvRow } from '../../shared/staff/csv';

describe('job data as the queue dashboard shows it', () => {
  it('keeps the ids, status, type and amounts of a payment-instruction job and hides its reference', () => {
    const data = {
      requestId: 'r-1',
      organisationId: 3,
      accountId: 9,
      payload: {
        import_supplier: 'S',
        external_account_number: 'E-1',
        vendor: 'STRIPE',
        type: 'CARD',
        reference: 'pm_secret',
        valid_from: '2026-01-01',
      },
    };
    expect(redactJobValue(data)).toEqual({
      requestId: 'r-1',
      organisationId: 3,
      accountId: 9,
      payload: {
        import_supplier: 'S',
        external_account_number: 'E-1',
        vendor: 'STRIPE',
        type: 'CARD',
        reference: REDACTED,
        valid_from: REDACTED,
      },
    });
  });

  it('hides whatever sits under a key that names a secret, even numbers and nested objects', () => {
    expect(
      redactJobValue({
        apiKey: 'dik_abc',
        token: 123,
        stripe_secret: { id: 'x' },
        Authorization: 'Token abc',
        password: 'p',
        session_id: 's',
        nested: [{ refresh_token: 'r', status: 'ok' }],
      }),
    ).toEqual({
      apiKey: REDACTED,
      token: REDACTED,
      stripe_secret: REDACTED,
      Authorization: REDACTED,
      password: REDACTED,
      session_id: REDACTED,
      nested: [{ refresh_token: REDACTED, status: 'ok' }],
    });
  });

  it('hides free text by default, keeps numbers, booleans and nulls, and keeps the length of lists', () => {
    expect(
      redactJobValue({
        body: 'hello',
        custom: 'text',
        count: 2,
        pinned: true,
        missing: null,
        line_items: [{ net_amount: '1.00', params: { a: 'b' } }, {}],
      }),
    ).toEqual({
      body: REDACTED,
      custom: REDACTED,
      count: 2,
      pinned: true,
      missing: null,
      line_items: [{ net_amount: '1.00', params: { a: REDACTED } }, {}],
    });
    expect(redactJobValue('top-level text')).toBe(REDACTED);
    expect(redactJobValue(undefined)).toBeUndefined();
  });
});

describe('CSV cells', () => {
  it.each([
    ['=1+2', "'=1+2"],
    ['+44 20', "'+44 20"],
    ['-5', "'-5"],
    ['@SUM(A1)', "'@SUM(A1)"],
    ['\tx', "'\tx"],
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['=cmd|"/c calc"!A0', `"'=cmd|""/c calc""!A0"`],
  ])('writes %j as %j', (value, cell) => {
    expect(csvCell(value)).toBe(cell);
  });

  it('writes empty cells for null and ends a record with CRLF', () => {
    expect(csvRow(['E-1', null, undefined])).toBe('E-1,,\r\n');
  });
});
