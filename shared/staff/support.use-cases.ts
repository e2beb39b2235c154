// The support page's questions: which suppliers exist, how far each migration has got, which
// accounts are pending or imported, and what one account holds.
import { STATUS_BY_STATE, streamProcessList } from '../accounts/account.use-cases';
import type { Database } from '../platform/db';
import { supplierNotFound } from '../platform/errors';
import { parseOrThrow } from '../platform/validation';
import * as repo from './support.repository';
import { accountRefusals } from './support-runs.repository';
import {
  AccountPageQuery,
  AccountSearchQuery,
  CsvQuery,
  LATEST_REJECTIONS,
  SUPPORT_PAGE_SIZE,
} from './support.schemas';

export const listSuppliers = (db: Database) => repo.listSuppliers(db.prisma);

async function findSupplier(db: Database, code: string) {
  const supplier = await repo.findSupplier(db.prisma, code);
  if (!supplier) throw supplierNotFound();
  return supplier;
}

export async function supplierOverview(db: Database, code: string) {
  const supplier = await findSupplier(db, code);
  return { supplier, counts: await repo.countProcesses(db.prisma, code) };
}

/** One page of the pending or imported list, with the cursors of the pages around it. */
export async function accountsPage(db: Database, code: string, query: unknown) {
  const q = parseOrThrow(AccountPageQuery, query);
  const supplier = await findSupplier(db, code);
  const fetched = await repo.pageProcesses(db.prisma, code, q.list, q, SUPPORT_PAGE_SIZE);
  const backwards = q.before !== undefined;
  const more = fetched.length > SUPPORT_PAGE_SIZE;
  const rows = fetched.slice(0, SUPPORT_PAGE_SIZE);
  if (backwards) rows.reverse();
  const first = rows[0]?.external_account_number;
  const last = rows.at(-1)?.external_account_number;
  // Going forwards there is a previous page whenever we started after something; backwards, a next one.
  const hasPrevious = backwards ? more : q.after !== undefined;
  const hasNext = backwards ? true : more;
  return {
    supplier,
    list: q.list,
    rows: rows.map((r) => ({ ...r, status: STATUS_BY_STATE[r.state] })),
    previous: hasPrevious && first !== undefined ? first : undefined,
    next: hasNext && last !== undefined ? last : undefined,
  };
}

/**
 * A search by external account number; finding nothing is an answer (`found` undefined), not an error.
 * Every refused write that named the account comes with it (shared/runs/), also when no process exists:
 * a refused account creation stages nothing, and its refusal is why the account was never created.
 */
export async function findAccount(db: Database, code: string, query: unknown) {
  const { number } = parseOrThrow(AccountSearchQuery, query);
  const supplier = await findSupplier(db, code);
  const process = await repo.findAccountDetail(db.prisma, code, number);
  const rejections = await accountRefusals(db.pool, code, number, LATEST_REJECTIONS);
  if (!process) return { supplier, number, found: undefined, rejections };
  return {
    supplier,
    number,
    found: { ...process, creationStatus: process.status, status: STATUS_BY_STATE[process.state], rejections },
  };
}

/** Streams a list (the API's list columns) from a server-side cursor; the caller must release it. */
export async function openAccountsCsv(db: Database, code: string, query: unknown, statementTimeoutMs: number) {
  const { list } = parseOrThrow(CsvQuery, query);
  await findSupplier(db, code);
  return { list, ...(await streamProcessList(db.pool, code, list, statementTimeoutMs)) };
}
