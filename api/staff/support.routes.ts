// The support page (both staff roles): suppliers, progress counts, keyset-paged lists, account
// search and CSV downloads. Read-only, so no CSRF token is involved.
import { Router, type Response } from 'express';
import { Transform, pipeline } from 'node:stream';
import type { ProcessListRow } from '../../shared/accounts/account.repository';
import type { Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import type { Logger } from '../../shared/platform/logger';
import { csvRow } from '../../shared/staff/csv';
import {
  accountsPage,
  findAccount,
  listSuppliers,
  openAccountsCsv,
  supplierOverview,
} from '../../shared/staff/support.use-cases';
import { supplierRuns } from '../../shared/staff/support-runs.use-cases';
import { holdStreamSlot, watchDeliveryRate, type StreamSlots } from '../streaming';
import { csrfToken } from './csrf';
import { staffOf } from './session';
import { accountPage, accountsListPage, supplierPage, suppliersPage } from './views/support.views';
import type { PageContext } from './views/layout';

export function supportRoutes(deps: { db: Database; logger: Logger; config: Config; streams: StreamSlots }): Router {
  const router = Router();
  const { db } = deps;
  const ctx = (req: Parameters<typeof staffOf>[0]): PageContext => ({ staff: staffOf(req), csrfToken: csrfToken(req) });

  router.get('/support/', async (req, res) => {
    res.type('html').send(suppliersPage(ctx(req), await listSuppliers(db)));
  });

  router.get('/support/suppliers/:code/', async (req, res) => {
    const [overview, { runs }] = await Promise.all([
      supplierOverview(db, req.params.code),
      supplierRuns(db, req.params.code),
    ]);
    res.type('html').send(supplierPage(ctx(req), overview, runs));
  });

  router.get('/support/suppliers/:code/accounts/', async (req, res) => {
    res.type('html').send(accountsListPage(ctx(req), await accountsPage(db, req.params.code, req.query)));
  });

  router.get('/support/suppliers/:code/account', async (req, res) => {
    const result = await findAccount(db, req.params.code, req.query);
    res
      .status(result.found ? 200 : 404)
      .type('html')
      .send(accountPage(ctx(req), result));
  });

  // A download holds a database connection throughout: staff downloads have a pool of stream slots of
  // their own (tenants that stall theirs cannot take it), each user counting as one owner.
  const staffUser = (req: Parameters<typeof staffOf>[0]) => `staff:${staffOf(req).username}`;
  router.get('/support/suppliers/:code/accounts.csv', holdStreamSlot(deps.streams.staff, staffUser));
  router.get('/support/suppliers/:code/accounts.csv', async (req, res) => {
    const csv = await openAccountsCsv(db, req.params.code, req.query, deps.config.LIST_STATEMENT_TIMEOUT_MS);
    const filename = `${req.params.code}-${csv.list}-accounts.csv`.replace(/[^A-Za-z0-9._-]/g, '_');
    res.attachment(filename);
    watchDeliveryRate(res, deps.config);
    streamCsv(res, csv.stream, csv.release, deps.logger);
  });

  return router;
}

const CSV_HEADER = csvRow(['external_account_number', 'platform_account_number', 'account_created_at']);

/** Rows as CSV, honouring backpressure; a client that goes away stops the cursor. */
function streamCsv(res: Response, rows: NodeJS.ReadableStream, release: (err?: Error) => void, logger: Logger): void {
  const toCsv = new Transform({
    writableObjectMode: true,
    transform(row: ProcessListRow, _enc, done) {
      done(null, csvRow([row.external_account_number, row.platform_account_number, row.account_created_at]));
    },
  });
  res.status(200).type('text/csv; charset=utf-8');
  toCsv.push(CSV_HEADER);
  pipeline(rows, toCsv, res, (err) => {
    release(err ?? undefined);
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err }, 'support CSV stream failed');
  });
}
