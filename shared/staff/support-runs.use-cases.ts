// The support page's questions about runs and refusals, answered from the run ledger (shared/runs/):
// a supplier's runs, one run opened, and the supplier's accounts with rejections by code.
import { z } from 'zod';
import type { Database } from '../platform/db';
import { supplierNotFound } from '../platform/errors';
import { parseOrThrow } from '../platform/validation';
import { getRun } from '../run-progress/run.use-cases';
import { findSupplier } from './support.repository';
import * as repo from './support-runs.repository';

/** Runs listed on a supplier's page, refusals on a run's page, rejected accounts on the by-code page. */
export const SUPPLIER_RUNS = 20;
export const RUN_REFUSALS = 200;
export const REJECTED_ACCOUNTS_SHOWN = 500;

const OrganisationId = z.coerce.number().int().positive().max(2_147_483_647);

async function supplierOf(db: Database, code: string) {
  const supplier = await findSupplier(db.prisma, code);
  if (!supplier) throw supplierNotFound();
  return supplier;
}

export async function supplierRuns(db: Database, code: string) {
  const supplier = await supplierOf(db, code);
  return { supplier, runs: await repo.latestRuns(db.pool, code, SUPPLIER_RUNS) };
}

/** One run of one organisation, as the API's runs endpoint sums it up, with its refused items. */
export async function supportRun(db: Database, code: string, organisation: string, runId: string, query: unknown) {
  const supplier = await supplierOf(db, code);
  const organisationId = parseOrThrow(OrganisationId, organisation);
  const { accounts_after } = parseOrThrow(z.object({ accounts_after: z.string().max(1024).optional() }), query);
  const run = await getRun(db, organisationId, runId, { accounts_after });
  const refusals = await repo.runRefusals(db.pool, organisationId, runId, RUN_REFUSALS);
  return { supplier, organisationId, run, refusals };
}

export async function rejectionsByCode(db: Database, code: string) {
  const supplier = await supplierOf(db, code);
  return { supplier, rows: await repo.rejectedAccounts(db.pool, code, REJECTED_ACCOUNTS_SHOWN) };
}

export async function openRejectionsCsv(db: Database, code: string, statementTimeoutMs: number) {
  await supplierOf(db, code);
  return repo.streamRejectedAccounts(db.pool, code, statementTimeoutMs);
}
