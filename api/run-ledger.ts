// The API's half of the run ledger (shared/runs/): every write the API answers itself (notes,
// statements, staging an account, and every refusal of a queued write before it is queued) is recorded
// with the client's Data-Import-Run-Id, in one multi-row insert written once the answer is sent, so it
// costs the request no latency (a successful note or statement write records its rows in the
// transaction that stores it instead). Which writes, and where each names its account, is in their
// endpoint declarations (api/endpoint-routes.ts mounts this step for them); the account is recorded
// only when the caller's organisation may use its supplier (shared/runs/ledger.repository.ts).
// Answers that come from the queue are recorded by the worker, in the transaction that stores them,
// and are skipped here (a replay was recorded when it first ran).
import type { RequestHandler, Response } from 'express';
import type { Database } from '../shared/platform/db';
import type { Logger } from '../shared/platform/logger';
import { parseRunId } from '../shared/requests/request-headers';
import { entriesOf, readSubject, type LedgerSubjectFields } from '../shared/runs/ledger-entries';
import { insertEntries, type RequestLedger } from '../shared/runs/ledger.repository';

declare module 'express-serve-static-core' {
  interface Request {
    /** The client's Data-Import-Run-Id when it is a valid one (for the log line and the ledger). */
    runId?: string;
    /** The supplier a recorded write names, as its declaration reads it (the log line, the refusal metric). */
    importSupplier?: string;
  }
}

export interface LedgerContext {
  db: Database;
  logger: Logger;
}

interface LedgerRoute {
  /** As stored in run_ledger.endpoint (a queued job's endpoint, or the path without its slashes). */
  endpoint: string;
  /** Where the request names its account (the endpoint declaration's `ledger.subject`). */
  subject: LedgerSubjectFields;
  /** The request's success is recorded by the worker that does the work later (a v2 schedule). */
  successFromWorker?: boolean;
}

/** The answer a request got, as the last res.json (or the error middleware's body) set it. */
export function noteAnswerBody(res: Response, body: unknown): void {
  res.locals.answerBody = body;
}

/** Marks an answer that a queued job stored (its ledger rows are the worker's). */
export function markQueuedAnswer(res: Response): void {
  res.locals.queuedAnswer = true;
}

/**
 * A synchronous write that records its own rows in its transaction (notes, statements): what they
 * name, and `recorded()` to call once that transaction has committed them (the answer then writes
 * none). Undefined when the request is not recorded (no caller).
 */
export function ledgerInTransaction(res: Response): { run: RequestLedger; recorded(): void } | undefined {
  const run = res.locals.ledgerRun as RequestLedger | undefined;
  return (
    run && {
      run,
      recorded: () => {
        res.locals.ledgerRecorded = true;
      },
    }
  );
}

/** Reads the run id of every data-import request, so its log line carries it. */
export function runContext(): RequestHandler {
  return (req, _res, next) => {
    const header = req.get('data-import-run-id');
    try {
      req.runId = parseRunId(header);
    } catch {
      req.runId = undefined;
    }
    next();
  };
}

/**
 * Records the request's answer in the ledger once it is sent. `bodyNoted`: the response's res.json
 * already notes its body (the thin path's, api/thin-path.ts), so it is not wrapped here.
 */
export function recordRun(
  ctx: LedgerContext,
  route: LedgerRoute,
  options: { bodyNoted?: boolean } = {},
): RequestHandler {
  return (req, res, next) => {
    const caller = req.caller;
    if (!caller) return next();
    // Read now: a route may drop the body once it has checked it.
    const subject = readSubject(route.subject, req.body);
    req.importSupplier = subject.supplierCode ?? undefined;
    if (!options.bodyNoted) {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        noteAnswerBody(res, body);
        return json(body);
      };
    }
    res.locals.ledgerRun = {
      organisationId: caller.organisationId,
      runId: req.runId ?? null,
      requestId: req.requestId ?? '',
      endpoint: route.endpoint,
      subject,
    } satisfies RequestLedger;
    res.once('finish', () => {
      // The write's own transaction recorded it (see ledgerInTransaction).
      if (res.locals.ledgerRecorded === true) return;
      const status = res.statusCode;
      const code = res.locals.errorCode as string | undefined;
      // Load shedding and rate limits name no outcome; result_pending's outcome comes from the worker.
      if (res.locals.queuedAnswer === true || status === 429 || code === 'result_pending') return;
      if (route.successFromWorker && status < 400) return;
      const entries = entriesOf(subject, status, res.locals.answerBody);
      const request = {
        requestId: req.requestId ?? '',
        endpoint: route.endpoint,
        httpStatus: status,
        subject,
        entries,
      };
      insertEntries(ctx.db.pool, { organisationId: caller.organisationId, runId: req.runId ?? null }, request).catch(
        (err: unknown) => ctx.logger.warn({ err, requestId: req.requestId }, 'run ledger rows not recorded'),
      );
    });
    next();
  };
}
