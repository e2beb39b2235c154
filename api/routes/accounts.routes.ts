// Migration progress: one account's transfer status and the three streamed process lists.
import { Router, type Response } from 'express';
import { Transform, pipeline } from 'node:stream';
import { getTransferStatus, openProcessList } from '../../shared/accounts/account.use-cases';
import type { ProcessListFilter, ProcessListRow } from '../../shared/accounts/account.repository';
import type { Config } from '../../shared/platform/config';
import type { Database } from '../../shared/platform/db';
import type { Logger } from '../../shared/platform/logger';
import { callerOf } from '../auth/authenticate';
import { holdStreamSlot, watchDeliveryRate, type StreamSlots } from '../streaming';

const LISTS: Record<string, ProcessListFilter> = {
  'all-account-import-processes': 'all',
  'pending-account-import-processes': 'pending',
  'imported-account-import-processes': 'imported',
};

export interface AccountRouteDeps {
  db: Database;
  logger: Logger;
  config: Config;
  streams: StreamSlots;
}

export function accountRoutes({ db, logger, config, streams }: AccountRouteDeps): Router {
  const router = Router();
  const organisationOf = (req: Parameters<typeof callerOf>[0]) => `org:${callerOf(req).organisationId}`;

  router.get('/account-transfer-status/:supplier/:externalAccountNumber/', async (req, res) => {
    const { organisationId } = callerOf(req);
    res.json(await getTransferStatus(db, organisationId, req.params.supplier, req.params.externalAccountNumber));
  });

  for (const [path, filter] of Object.entries(LISTS)) {
    router.get(`/${path}/:supplier/`, holdStreamSlot(streams.organisations, organisationOf));
    router.get(`/${path}/:supplier/`, async (req, res) => {
      const { organisationId } = callerOf(req);
      const list = await openProcessList(
        db,
        organisationId,
        req.params.supplier,
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
