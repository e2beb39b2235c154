// Migration progress: one account's transfer status and the three streamed process lists.
import { Router, type Response } from 'express';
import { Transform, pipeline } from 'node:stream';
import { getTransferStatus, openProcessList } from '../../shared/accounts/account.use-cases';
import type { ProcessListRow } from '../../shared/accounts/account.repository';
import { PROCESS_LIST_ENDPOINTS, transferStatusEndpoint } from '../../shared/accounts/account.endpoint';
import type { Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import type { Logger } from '../../shared/platform/logger';
import { callerOf } from '../auth/authenticate';
import { paramOf, routeOf } from '../endpoint-path';
import { watchDeliveryRate, type StreamSlots } from '../streaming';

export interface AccountRouteDeps {
  db: Database;
  logger: Logger;
  config: Config;
  streams: StreamSlots;
}

/** The lists hold a stream slot of the organisation (their declarations say so). */
export function accountRoutes({ db, logger, config }: AccountRouteDeps): Router {
  const router = Router();

  router.get(routeOf(transferStatusEndpoint), async (req, res) => {
    const { organisationId } = callerOf(req);
    const [supplier, external] = [paramOf(req, 'import_supplier_code'), paramOf(req, 'external_account_number')];
    res.json(await getTransferStatus(db, organisationId, supplier, external));
  });

  for (const { endpoint, filter } of PROCESS_LIST_ENDPOINTS) {
    router.get(routeOf(endpoint), async (req, res) => {
      const { organisationId } = callerOf(req);
      const list = await openProcessList(
        db,
        organisationId,
        paramOf(req, 'import_supplier_code'),
        filter,
        config.LIST_STATEMENT_TIMEOUT_MS,
      );
      watchDeliveryRate(res, config);
      streamJsonArray(res, list.stream, list.release, logger);
    });
  }

  return router;
}

/** Writes rows as one JSON array, honouring backpressure; a client that goes away stops the cursor. */
function streamJsonArray(
  res: Response,
  rows: NodeJS.ReadableStream,
  release: (err?: Error) => void,
  logger: Logger,
): void {
  let first = true;
  const toJson = new Transform({
    writableObjectMode: true,
    transform(row: ProcessListRow, _enc, done) {
      const item =
        `{"external_account_number":${JSON.stringify(row.external_account_number)},` +
        `"platform_account_number":${row.platform_account_number === null ? 'null' : JSON.stringify(row.platform_account_number)},` +
        `"account_created_at":${row.account_created_at === null ? 'null' : `"${row.account_created_at}"`}}`;
      done(null, (first ? '[' : ',') + item);
      first = false;
    },
    flush(done) {
      done(null, first ? '[]' : ']');
    },
  });
  res.status(200).type('application/json');
  pipeline(rows, toJson, res, (err) => {
    // A client closing early is ERR_STREAM_PREMATURE_CLOSE: the connection goes back broken, not reused.
    release(err ?? undefined);
    if (err && err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err }, 'process list stream failed');
  });
}
