// How one answer decides a batch's items, including answers the current service does not give yet
// (a transactions 400 that lists every failing item) and the ones it gives rarely.
import { classifyAnswer } from '../../client/answer-classifier';
import { backoffMs, retryAfterMs } from '../../client/http/retry-policy';

const items = (n: number) => Array.from({ length: n }, (_, i) => ({ transaction_id: `T-${i}` }));

describe('a 400', () => {
  it('that lists several failing transactions fails each of them in one round and sends the rest again', () => {
    const body = {
      status: 'TRANSACTION_IMPORT_ERROR',
      error_detail: 'Transaction 1 failed validation',
      transaction_data: {},
      errors: [
        { attr: 'transactions.1.amount', code: 'invalid', detail: 'A valid number is required.' },
        { attr: 'transactions.3.transaction_date', code: 'transaction_in_future', detail: 'In the future.' },
        { attr: 'transactions.3.amount', code: 'invalid', detail: 'Second problem of the same item.' },
      ],
    };
    const verdict = classifyAnswer('transactions', 400, body, null, items(5));
    expect(verdict).toEqual({
      type: 'split',
      outcomes: new Map([
        [1, { ok: false, code: 'invalid', attr: 'amount', detail: 'A valid number is required.' }],
        [3, { ok: false, code: 'transaction_in_future', attr: 'transaction_date', detail: 'In the future.' }],
      ]),
      rest: [0, 2, 4],
    });
  });

  it('whose named items only already exist counts them as there, and an index past the batch names nothing', () => {
    const body = {
      code: 'historical_statement_already_exists',
      errors: [
        { attr: 'statements.0.statement_id', code: 'historical_statement_already_exists', detail: 'Exists.' },
        { attr: 'statements.7.statement_id', code: 'invalid', detail: 'No such item.' },
      ],
    };
    expect(classifyAnswer('statements', 400, body, null, items(1))).toEqual({
      type: 'final',
      outcomes: [{ ok: true, status: 'HISTORICAL_STATEMENT_ALREADY_EXISTS' }],
    });
  });

  it('that names no item fails the whole batch with the top-level code', () => {
    const body = {
      code: 'invalid_input',
      detail: 'transactions: too many',
      errors: [{ attr: 'transactions', code: 'max_length', detail: 'Too many.' }],
    };
    const verdict = classifyAnswer('transactions', 400, body, null, items(2));
    expect(verdict).toEqual({
      type: 'final',
      outcomes: [0, 1].map(() => ({
        ok: false,
        code: 'invalid_input',
        attr: 'transactions',
        detail: 'transactions: too many',
      })),
    });
  });
});

it('retries 429 and every 5xx, honouring Retry-After, and asks for a new token on 401', () => {
  expect(classifyAnswer('notes', 503, { code: 'result_pending' }, '7', items(1))).toEqual({
    type: 'retry',
    retryAfterMs: 7000,
    reason: '503 result_pending',
  });
  expect(classifyAnswer('notes', 429, {}, null, items(1))).toMatchObject({ type: 'retry' });
  expect(classifyAnswer('notes', 500, { code: 'temporary_failure' }, null, items(1))).toMatchObject({ type: 'retry' });
  expect(classifyAnswer('notes', 401, { code: 'token_expired' }, null, items(1))).toEqual({
    type: 'reauth',
    reason: 'token_expired',
  });
  expect(
    classifyAnswer('notes', 422, { code: 'idempotency_key_reused', detail: 'Reused.' }, null, items(1)),
  ).toMatchObject({
    type: 'final',
    outcomes: [{ ok: false, code: 'idempotency_key_reused' }],
  });
});

it('reads Retry-After as seconds or an HTTP date, and backs off exponentially with jitter, never before Retry-After', () => {
  expect(retryAfterMs('3')).toBe(3000);
  expect(retryAfterMs(new Date(Date.now() + 60_000).toUTCString())).toBeGreaterThan(55_000);
  expect(retryAfterMs('soon')).toBeUndefined();
  for (let attempt = 0; attempt < 20; attempt++) {
    const ceiling = Math.min(30_000, 250 * 2 ** attempt);
    const delay = backoffMs(attempt);
    expect(delay).toBeGreaterThanOrEqual(ceiling / 2);
    expect(delay).toBeLessThanOrEqual(ceiling);
    expect(backoffMs(attempt, 5000)).toBeGreaterThanOrEqual(5000);
  }
});

describe('a 2xx', () => {
  const notes = (n: number) => Array.from({ length: n }, (_, i) => ({ body: `Note ${i}` }));
  const created = (status = 'TRANSACTION_ADDED_TO_ACCOUNT') => ({ status, transaction_data: {} });

  it('that is empty, not JSON or short of one result per item is retried, never counted as stored', () => {
    const unproven: [Parameters<typeof classifyAnswer>[0], number, unknown, number][] = [
      ['transactions', 201, undefined, 2], // an empty body, or one that is not JSON (the sender parses to undefined)
      ['transactions', 201, {}, 2],
      ['transactions', 201, { results: [created()] }, 2],
      ['transactions', 201, { results: [created(), created(), created()] }, 2],
      ['transactions', 201, { results: [created(), created('TRANSACTION_REJECTED')] }, 2],
      ['transactions', 200, { results: [created(), null] }, 2],
      ['notes', 201, { status: 'NOTE_CREATION_SUCCESS' }, 1],
      ['notes', 201, [{ body: 'no status' }], 1],
      ['notes', 204, undefined, 1],
      ['statements', 201, { import_supplier: 'S', statements: [] }, 1],
      ['payment-instructions', 201, { platform_account_number: 'P-1' }, 1],
    ];
    for (const [kind, status, body, count] of unproven) {
      const verdict = classifyAnswer(kind, status, body, null, kind === 'notes' ? notes(count) : items(count));
      expect([kind, body, verdict]).toEqual([
        kind,
        body,
        { type: 'retry', reason: `${status} without one result per item` },
      ]);
    }
  });

  it('with one result per item gives each item its status', () => {
    expect(
      classifyAnswer(
        'transactions',
        201,
        { results: [created(), { ...created('TRANSACTION_ALREADY_EXISTS') }] },
        null,
        items(2),
      ),
    ).toEqual({
      type: 'final',
      outcomes: [
        { ok: true, status: 'TRANSACTION_ADDED_TO_ACCOUNT', id: 'T-0' },
        { ok: true, status: 'TRANSACTION_ALREADY_EXISTS', id: 'T-1' },
      ],
    });
    expect(
      classifyAnswer(
        'payment-instructions',
        201,
        { platform_account_number: 'P-1', reference: 'pm_1' },
        null,
        items(1),
      ),
    ).toEqual({ type: 'final', outcomes: [{ ok: true, status: 'PAYMENT_INSTRUCTION_CREATED', id: 'pm_1' }] });
  });
});

describe('matches_stored: false', () => {
  it('on a transaction result or on its transaction_data marks that item as differing from what is stored', () => {
    const body = {
      results: [
        { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: {} },
        { status: 'TRANSACTION_ALREADY_EXISTS', matches_stored: false, transaction_data: {} },
        { status: 'TRANSACTION_ALREADY_EXISTS', transaction_data: { matches_stored: false } },
        { status: 'TRANSACTION_ALREADY_EXISTS', matches_stored: true, transaction_data: { matches_stored: true } },
      ],
    };
    expect(classifyAnswer('transactions', 201, body, null, items(4))).toEqual({
      type: 'final',
      outcomes: [
        { ok: true, status: 'TRANSACTION_ALREADY_EXISTS', id: 'T-0' },
        { ok: true, status: 'TRANSACTION_ALREADY_EXISTS', id: 'T-1', differs: true },
        { ok: true, status: 'TRANSACTION_ALREADY_EXISTS', id: 'T-2', differs: true },
        { ok: true, status: 'TRANSACTION_ALREADY_EXISTS', id: 'T-3' },
      ],
    });
  });

  it('on a note echo, or on an already-existing statement named by a 400, marks that item too', () => {
    const notesBody = [
      { status: 'NOTE_ALREADY_EXISTS', body: 'a', matches_stored: false },
      { status: 'NOTE_CREATION_SUCCESS', body: 'b' },
    ];
    expect(classifyAnswer('notes', 201, notesBody, null, [{ body: 'a' }, { body: 'b' }])).toEqual({
      type: 'final',
      outcomes: [
        { ok: true, status: 'NOTE_ALREADY_EXISTS', differs: true },
        { ok: true, status: 'NOTE_CREATION_SUCCESS' },
      ],
    });
    const statementsBody = {
      code: 'historical_statement_already_exists',
      errors: [
        { attr: 'statements.0.statement_id', code: 'historical_statement_already_exists', matches_stored: false },
        { attr: 'statements.1.statement_id', code: 'historical_statement_already_exists' },
      ],
    };
    expect(classifyAnswer('statements', 400, statementsBody, null, items(2))).toEqual({
      type: 'final',
      outcomes: [
        { ok: true, status: 'HISTORICAL_STATEMENT_ALREADY_EXISTS', differs: true },
        { ok: true, status: 'HISTORICAL_STATEMENT_ALREADY_EXISTS' },
      ],
    });
  });
});
