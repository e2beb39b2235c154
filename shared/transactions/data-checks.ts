// The checks that need stored data (open statement period, product catalogue, already charged
// periods), run by the API on a request whose field checks failed: the 400 then names the first
// failing transaction in request order and lists every failing one, whatever check each fails (README
// "Transactions"). Read-only and without the account lock: the request is refused and never queued.
// A request that passes its field checks is judged by the worker alone, under the lock.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import type { Database, Sql } from '../platform/db';
import type { FieldError } from '../platform/errors';
import { findUnstorableJson } from '../platform/validation';
import { failingTransactionEcho } from './failing-echo';
import { planImport, rejectionOf, type PlannedTransaction, type Rejection } from './import-plan';
import {
  addedSupplyCharges,
  checkSupplyCharges,
  coveredDays,
  type SupplyChargeState,
} from './supply-charge.validation';
import type { TransactionData } from './transaction-data';
import * as repo from './transaction.repository';
import { Transaction, type TransactionInput } from './transaction.schemas';
import type { TransactionImportError } from './transaction.errors';
import type { TransactionFieldErrors } from './transaction.validation';

/** `fieldErrors` with the data checks' rejections of the transactions that passed their field checks. */
export async function withDataChecks(
  db: Database,
  organisationId: number,
  body: unknown,
  fieldErrors: TransactionFieldErrors,
): Promise<TransactionImportError> {
  const request = body as { transactions: unknown[]; import_supplier: string };
  const failing = new Set(fieldErrors.rejections.map((r) => r.index));
  const rejected = [...fieldErrors.rejections];
  const passing: { index: number; transaction: TransactionInput }[] = [];
  for (const [index, item] of request.transactions.entries()) {
    if (failing.has(index)) continue;
    const unstorable = findUnstorableJson(item);
    if (unstorable) rejected.push(unstorableItem(index, item, unstorable));
    else {
      const parsed = Transaction.safeParse(item);
      if (parsed.success) passing.push({ index, transaction: parsed.data });
    }
  }
  const account = passing.length > 0 ? await writableAccount(db, organisationId, body) : undefined;
  if (account) rejected.push(...(await checkStoredData(db.pool, account, passing, fieldErrors.options)));
  return rejected.length === fieldErrors.rejections.length ? fieldErrors : rejectionOf(rejected);
}

/** The account, or undefined where the worker would never have been asked (a 400 comes before a 404). */
async function writableAccount(db: Database, organisationId: number, body: unknown) {
  const ref = body as { import_supplier: string; external_account_number?: string; account_number?: string };
  if (findUnstorableJson([ref.import_supplier, ref.external_account_number, ref.account_number])) return undefined;
  try {
    return await resolveWritableAccount(db, organisationId, ref);
  } catch {
    return undefined;
  }
}

async function checkStoredData(
  sql: Sql,
  account: { accountId: number; platformAccountNumber: string },
  passing: { index: number; transaction: TransactionInput }[],
  options: { check_previously_added: boolean; force_add_to_current_statement: boolean },
): Promise<Rejection[]> {
  const transactions = passing.map((p) => p.transaction);
  const existing = options.check_previously_added
    ? await repo.findExistingTransactions(sql, [
        { accountId: account.accountId, transactionIds: transactions.map((t) => t.transaction_id) },
      ])
    : new Map<number, Map<string, TransactionData>>();
  const openPeriod = await repo.findOpenPeriod(sql, account.accountId);
  const { planned, rejected } = planImport(
    transactions,
    existing.get(account.accountId) ?? new Map<string, TransactionData>(),
    { platformAccountNumber: account.platformAccountNumber, openPeriod },
    options.force_add_to_current_statement,
    undefined,
    passing.map((p) => p.index),
  );
  return [...rejected, ...checkSupplyCharges(planned, await loadSupplyChargeState(sql, account.accountId, planned))];
}

function unstorableItem(index: number, item: unknown, problem: FieldError): Rejection {
  const attr = problem.attr === 'non_field_errors' ? `transactions.${index}` : `transactions.${index}.${problem.attr}`;
  return { index, data: failingTransactionEcho(item), errors: [{ ...problem, attr }] };
}

/** The catalogue and charged periods the request's new supply charges meet; nothing is read without any. */
export async function loadSupplyChargeState(
  sql: Sql,
  accountId: number,
  planned: PlannedTransaction[],
): Promise<SupplyChargeState> {
  const charges = addedSupplyCharges(planned).map((c) => c.charge);
  if (charges.length === 0) return { products: new Map(), charged: [] };
  const days = charges.flatMap((c) => c.line_items.map(coveredDays));
  const from = days.reduce((min, d) => (d.from < min ? d.from : min), days[0]!.from);
  const until = days.reduce((max, d) => (d.until > max ? d.until : max), days[0]!.until);
  // One after the other: in the worker both run on the one connection of the import's transaction.
  const products = await repo.findProductRates(sql, [...new Set(charges.map((c) => c.product_code))]);
  return { products, charged: await repo.findChargedPeriods(sql, accountId, from, until) };
}
