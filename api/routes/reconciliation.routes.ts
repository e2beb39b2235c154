// GET /v1/data-import/reconciliation/<supplier>/: one row per imported account with what the service
// stored, streamed from a cursor as NDJSON (default) or CSV (`Accept: text/csv`).
import { Router, type Response } from 'express';
import { Transform, pipeline } from 'node:stream';
import {
  openReconciliation,
  RECONCILIATION_CSV_HEADER,
  reconciliationCsvRecord,
  toReconciliationRow,
} from '../../shared/reconciliation/reconciliation.use-cases';
import { reconciliationEndpoint } from '../../shared/reconciliation/reconciliation.endpoint';
import type { ReconciliationDbRow } from '../../shared/reconciliation/reconciliation.repository';
import type { Logger } from '../../shared/platform/logger';
import { callerOf } from '../auth/authenticate';
import { paramOf, routeOf } from '../endpoint-path';
import { watchDeliveryRate } from '../streaming';
import type { AccountRouteDeps } from './accounts.routes';

/** Like the process lists, the stream holds a pooled connection: it takes a stream slot (its declaration) and is watched. */
export function reconciliationRoutes({ db, logger, config }: AccountRouteDeps): Router {
  const router = Router();

  router.get(routeOf(reconciliationEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const csv = req.accepts(['application/x-ndjson', 'text/csv']) === 'text/csv';
    const list = await openReconciliation(
      db,
      organisationId,
      paramOf(req, 'import_supplier_code'),
      config.LIST_STATEMENT_TIMEOUT_MS,
    );
    watchDeliveryRate(res, config);
    streamRows(res, csv, list.stream, list.release, logger);
  });

  return router;
}

function streamRows(
  res: Response,
  csv: boolean,
  rows: NodeJS.ReadableStream,
  release: (err?: Error) => void,
  logger: Logger,
): void {
  let first = true;
  const encode = new Transform({
    writableObjectMode: true,
    transform(row: ReconciliationDbRow, _enc, done) {
      const out = toReconciliationRow(row);
      const line = csv ? reconciliationCsvRecord(out) : `${JSON.stringify(out)}\n`;
      done(null, csv && first ? RECONCILIATION_CSV_HEADER + line : line);
      first = false;
    },
    flush(done) {
      // A CSV with no accounts still names its columns.
      done(null, csv && first ? RECONCILIATION_CSV_HEADER : '');
    },
  });
  res.status(200).type(csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson; charset=utf-8');
  pipeline(rows, encode, res, (err) => {
    // A client closing early is ERR_STREAM_PREMATURE_CLOSE: the connection goes back broken, not reused.
    release(err ?? undefined);
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err }, 'reconciliation stream failed');
  });
}
