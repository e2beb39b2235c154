// The pure checks behind what the client prints and reads from the service: control characters out
// of printed text and result files, and reconciliation figures bounded before they become numbers.
import { parseReconciliationRow } from '../../client/reconciliation-row';
import { jsonLine, oneLine, printable } from '../../client/terminal-text';

describe('printed text', () => {
  it('loses ESC, C1, carriage returns and bidirectional overrides, and keeps newlines and tabs', () => {
    expect(printable('a\u001b[2Jb\u009b31mc\rd\u202ee\u0007f\n\tg\u007f')).toBe('a[2Jb31mcdef\n\tg');
    expect(oneLine('two\nlines\u001b', 20)).toBe('two lines ');
    expect(oneLine('x'.repeat(50), 10)).toBe(`${'x'.repeat(10)}…`);
  });

  it('as a JSON line is printable as it stands and parses back to the very same value', () => {
    const value = { detail: 'a\u001b[2J\u009b31m\u2028\u202e\u0000z', n: 1 };
    const line = jsonLine(value);
    expect(printable(line)).toBe(line);
    expect(line.endsWith('\n')).toBe(true);
    expect(JSON.parse(line)).toEqual(value);
  });
});

describe('a reconciliation row', () => {
  const row = (figures: Record<string, unknown>) =>
    JSON.stringify({ external_account_number: 'A-1', platform_account_number: 'P-1', ...figures });

  it('gives exact figures for bounded integers, decimals and flags; an absent figure is 0', () => {
    const parsed = parseReconciliationRow(
      row({
        notes_count: 3,
        transactions_charge_amount: '12345678901234567890.0000000001',
        payment_instruction_active: true,
      }),
      1,
    );
    expect(parsed.account).toBe('A-1');
    expect(parsed.found.get('notes_count')!.toFixed()).toBe('3');
    expect(parsed.found.get('transactions_charge_amount')!.toFixed()).toBe('12345678901234567890.0000000001');
    expect(parsed.found.get('payment_instruction_active')!.toFixed()).toBe('1');
    expect(parsed.found.get('statements_count')!.toFixed()).toBe('0');
  });

  it('is refused, naming the row and figure, when a figure is not bounded or not of its kind', () => {
    const refused: Record<string, unknown>[] = [
      { notes_count: '1e900000000' },
      { notes_count: 1e300 },
      { notes_count: -1 },
      { notes_count: 1.5 },
      { notes_count: '9'.repeat(5000) },
      { transactions_charge_amount: '1e5' },
      { transactions_charge_amount: 'NaN' },
      { transactions_charge_amount: '0x10' },
      { transactions_charge_amount: ' 1.00' },
      { transactions_charge_amount: { $gt: 1 } },
      { payment_instruction_active: 'yes' },
    ];
    for (const figures of refused) {
      const name = Object.keys(figures)[0]!;
      expect(() => parseReconciliationRow(row(figures), 7)).toThrow(
        `reconciliation row 7 is refused: ${name} of account A-1`,
      );
    }
    expect(() => parseReconciliationRow('{"external_account_number": 5}', 2)).toThrow(
      /row 2 .*external_account_number/,
    );
    expect(() => parseReconciliationRow('[1]', 3)).toThrow(/row 3 .*not a JSON object/);
  });
});
