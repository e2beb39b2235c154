// The rehearsal's input: the supplier and organisation as an admin `apply` file, the accounts as the
// client's NDJSON (one account per line, created through the API), and transactions (NDJSON), notes
// (NDJSON) and statements (CSV) spread over those accounts, and payment instructions (NDJSON, one card per
// account, for the local fake vendor: its references file is written beside them), with a known
// sprinkling of invalid lines.
// Deterministic: the same sizes always give the same files, so a second run sends the very same data.
import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';

export interface Sizes {
  accounts: number;
  transactions: number;
  notes: number;
  statements: number;
  /** One card per account, for the first this many accounts. */
  paymentInstructions: number;
  /** One invalid line in this many (at a fixed offset within each block). */
  invalidEvery: number;
}

export interface RehearsalFiles {
  applyFiles: string[];
  /** `data-import-client send accounts`: one account per line. */
  accounts: string;
  transactions: string;
  notes: string;
  statements: string;
  paymentInstructions: string;
  /** The PaymentMethods the fake vendor knows (`npm run fake-vendor -- --references`). */
  vendorReferences: string;
  /** Line numbers of the lines that must end in failed.ndjson, per file. */
  invalid: { transactions: number[]; notes: number[]; statements: number[]; paymentInstructions: number[] };
}

export const SUPPLIER = 'REHEARSAL_ENERGY';
export const API_KEY = `rehearsal-${'k'.repeat(40)}`;

const accountNumber = (i: number) => `R-${String(i).padStart(7, '0')}`;

async function writeLines(file: string, count: number, line: (n: number) => string, header?: string): Promise<void> {
  const out: WriteStream = createWriteStream(file);
  const write = (text: string) => (out.write(text) ? undefined : new Promise<void>((r) => out.once('drain', r)));
  if (header) await write(header + '\n');
  for (let n = 1; n <= count; n++) await write(line(n) + '\n');
  await new Promise<void>((resolve, reject) => out.end((err?: Error | null) => (err ? reject(err) : resolve())));
}

const isInvalid = (n: number, every: number) => n % every === Math.floor(every / 2);

export async function generateFiles(dir: string, sizes: Sizes): Promise<RehearsalFiles> {
  const invalid: RehearsalFiles['invalid'] = { transactions: [], notes: [], statements: [], paymentInstructions: [] };
  const applyFiles = writeSetup(dir);
  const accounts = await writeAccounts(dir, sizes);
  const transactions = await writeTransactions(dir, sizes, invalid.transactions);
  const notes = await writeNotes(dir, sizes, invalid.notes);
  const statements = await writeStatements(dir, sizes, invalid.statements);
  const { paymentInstructions, vendorReferences } = await writePaymentInstructions(
    dir,
    sizes,
    invalid.paymentInstructions,
  );
  return { applyFiles, accounts, transactions, notes, statements, paymentInstructions, vendorReferences, invalid };
}

/** The supplier and organisation, for `admin apply` (the platform team's step). */
function writeSetup(dir: string): string[] {
  const setup = path.join(dir, 'setup.json');
  writeFileSync(
    setup,
    JSON.stringify({
      suppliers: [{ code: SUPPLIER, status: 'Ongoing', document_root: 'imports/rehearsal' }],
      organisations: [{ name: 'rehearsal-migration', api_key: API_KEY, suppliers: [SUPPLIER] }],
    }),
  );
  return [setup];
}

/**
 * The accounts as the migration team sends them: one customer, a billing address, an opening balance,
 * and a last statement closed on 2019-09-30, so the open statement period (from 2019-10-01) takes the
 * transactions and statements that follow.
 */
async function writeAccounts(dir: string, sizes: Sizes): Promise<string> {
  const accounts = path.join(dir, 'accounts.ndjson');
  await writeLines(accounts, sizes.accounts, (n) =>
    JSON.stringify({
      import_supplier: SUPPLIER,
      external_account_number: accountNumber(n - 1),
      account_type: 'DOMESTIC',
      billing_name: `Rehearsal customer ${n}`,
      billing_address1: `${n} Rehearsal Street`,
      billing_postcode: 'W1F 9DE',
      customers: [{ given_name: 'Ann', family_name: `Customer ${n}` }],
      transfer_balance: `${n % 500}.${String(n % 100).padStart(2, '0')}`,
      last_statement_closing_date: '2019-09-30',
    }),
  );
  return accounts;
}

/** The account of item n of total: sorted by account, as an export usually is, so account a gets items
 * a*per … (a+1)*per-1. */
function accountOf(n: number, total: number, sizes: Sizes): string {
  const perAccount = Math.max(1, Math.ceil(total / sizes.accounts));
  return accountNumber(Math.floor((n - 1) / perAccount) % sizes.accounts);
}

const TYPES = ['CHARGE', 'CREDIT', 'PAYMENT', 'REPAYMENT'];

async function writeTransactions(dir: string, sizes: Sizes, invalid: number[]): Promise<string> {
  const transactions = path.join(dir, 'transactions.ndjson');
  await writeLines(transactions, sizes.transactions, (n) => {
    const t = {
      import_supplier: SUPPLIER,
      external_account_number: accountOf(n, sizes.transactions, sizes),
      transaction_id: `TX-${n}`,
      transaction_date: `2024-${String((n % 12) + 1).padStart(2, '0')}-${String((n % 28) + 1).padStart(2, '0')}`,
      amount: `${(n % 997) + 1}.${String(n % 100).padStart(2, '0')}`,
      type: TYPES[n % TYPES.length],
    };
    if (!isInvalid(n, sizes.invalidEvery)) return JSON.stringify(t);
    invalid.push(n);
    const faults = [
      () => JSON.stringify(t).slice(0, 40),
      () => JSON.stringify({ ...t, amount: 'twelve' }),
      () => JSON.stringify({ ...t, type: 'PAYMENT', amount: '-1.00' }),
      () => JSON.stringify({ ...t, external_account_number: 'R-NOT-IMPORTED' }),
      () => JSON.stringify({ ...t, transaction_date: '2024-02-30' }),
    ];
    return faults[((n / sizes.invalidEvery) % faults.length) | 0]!();
  });
  return transactions;
}

async function writeNotes(dir: string, sizes: Sizes, invalid: number[]): Promise<string> {
  const notes = path.join(dir, 'notes.ndjson');
  await writeLines(notes, sizes.notes, (n) => {
    const note = {
      import_supplier: SUPPLIER,
      external_account_number: accountOf(n, sizes.notes, sizes),
      body: `Migrated note ${n}`,
      created_at: '2024-05-01T10:00:00Z',
    };
    if (!isInvalid(n, sizes.invalidEvery)) return JSON.stringify(note);
    invalid.push(n);
    return n % 2 ? JSON.stringify({ ...note, body: undefined }) : JSON.stringify({ ...note, created_at: 'yesterday' });
  });
  return notes;
}

/** CSV: the header is line 1, so item n sits on line n + 1. */
async function writeStatements(dir: string, sizes: Sizes, invalid: number[]): Promise<string> {
  const statements = path.join(dir, 'statements.csv');
  await writeLines(
    statements,
    sizes.statements,
    (n) => {
      const cells = [
        SUPPLIER,
        accountOf(n, sizes.statements, sizes),
        `ST-${n}`,
        '2024-01-01',
        '2024-01-31',
        String(1000 + (n % 5000)),
      ];
      if (!isInvalid(n, sizes.invalidEvery)) return cells.join(',');
      invalid.push(n + 1);
      return n % 2
        ? [...cells.slice(0, 3), '2024-02-01', '2024-01-31', cells[5]].join(',')
        : [...cells.slice(0, 2), '', ...cells.slice(3)].join(',');
    },
    'import_supplier,external_account_number,statement_id,bill_period_from_date,bill_period_to_date,gross_amount',
  );
  return statements;
}

/**
 * One STRIPE card per account, and the fake vendor's references file. Invalid lines name a card the
 * vendor does not know (payment_instruction_not_found_at_vendor) or one it knows as expired
 * (payment_method_card_expired): the vendor's refusals, rehearsed.
 */
async function writePaymentInstructions(
  dir: string,
  sizes: Sizes,
  invalid: number[],
): Promise<{ paymentInstructions: string; vendorReferences: string }> {
  const paymentInstructions = path.join(dir, 'payment-instructions.ndjson');
  const references: string[] = ["# the rehearsal's cards, for npm run fake-vendor -- --references"];
  await writeLines(paymentInstructions, Math.min(sizes.paymentInstructions, sizes.accounts), (n) => {
    let reference = `pm_rehearsal_${n}`;
    if (!isInvalid(n, sizes.invalidEvery)) references.push(reference);
    else {
      invalid.push(n);
      reference = n % 2 ? `pm_rehearsal_unknown_${n}` : `pm_rehearsal_expired_${n}`;
      if (n % 2 === 0) references.push(JSON.stringify({ reference, exp_year: 2020 }));
    }
    return JSON.stringify({
      import_supplier: SUPPLIER,
      external_account_number: accountNumber(n - 1),
      vendor: 'STRIPE',
      type: 'CARD',
      reference,
    });
  });
  const vendorReferences = path.join(dir, 'vendor-references.txt');
  writeFileSync(vendorReferences, references.join('\n') + '\n');
  return { paymentInstructions, vendorReferences };
}
