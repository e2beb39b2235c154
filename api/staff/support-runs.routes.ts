// The support page's run-ledger pages (both staff roles, read-only): one run opened, and a supplier's
// accounts with rejections by code, as a page and as a formula-safe CSV download.
import { Router, type Response } from 'express';
import { Transform, pipeline } from 'node:stream';
import type { Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import type { Logger } from '../../shared/platform/logger';
import { csvRow } from '../../shared/staff/csv';
import type { RejectedAccountRow } from '../../shared/staff/support-runs.repository';
import { openRejectionsCsv, rejectionsByCode, supportRun } from '../../shared/staff/support-runs.use-cases';
import { holdStreamSlot, watchDeliveryRate, type StreamSlots } from '../streaming';
import { csrfToken } from './csrf';
import { staffOf } from './session';
import { rejectionsPage, runPage } from './views/runs.views';
import type { PageContext } from './views/layout';

const CSV_COLUMNS = [
  'code',
  'external_account_number',
  'errors',
  'example_attr',
  'last_refused_at',
  'last_run_id',
] as const;

export function supportRunRoutes(deps: { db: Database; logger: Logger; config: Config; streams: StreamSlots }): Router {
  const router = Router();
  const { db } = deps;
  const ctx = (req: Parameters<typeof staffOf>[0]): PageContext => ({ staff: staffOf(req), csrfToken: csrfToken(req) });

  router.get('/support/suppliers/:code/runs/:organisation/:runId/', async (req, res) => {
    const run = await supportRun(db, req.params.code, req.params.organisation, req.params.runId, req.query);
    res.type('html').send(runPage(ctx(req), run));
  });

  router.get('/support/suppliers/:code/rejections/', async (req, res) => {
    res.type('html').send(rejectionsPage(ctx(req), await rejectionsByCode(db, req.params.code)));
  });

  const staffUser = (req: Parameters<typeof staffOf>[0]) => `staff:${staffOf(req).username}`;
  router.get('/support/suppliers/:code/rejections.csv', holdStreamSlot(deps.streams.staff, staffUser));
  router.get('/support/suppliers/:code/rejections.csv', async (req, res) => {
    const csv = await openRejectionsCsv(db, req.params.code, deps.config.LIST_STATEMENT_TIMEOUT_MS);
    res.attachment(`${req.params.code}-rejections.csv`.replace(/[^A-Za-z0-9._-]/g, '_'));
    watchDeliveryRate(res, deps.config);
    streamRejections(res, csv.stream, csv.release, deps.logger);
  });

  return router;
}

/** Rows as CSV, every cell formula-safe (csvRow), honouring backpressure; a client that goes away stops the cursor. */
function streamRejections(res: Response, rows: NodeJS.ReadableStream, release: (err?: Error) => void, logger: Logger) {
  const toCsv = new Transform({
    writableObjectMode: true,
    transform(row: RejectedAccountRow, _enc, done) {
      done(null, csvRow(CSV_COLUMNS.map((c) => (row[c] === null ? null : String(row[c])))));
    },
  });
  res.status(200).type('text/csv; charset=utf-8');
  toCsv.push(csvRow([...CSV_COLUMNS]));
  pipeline(rows, toCsv, res, (err) => {
    release(err ?? undefined);
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err }, 'rejections CSV stream failed');
  });
}
