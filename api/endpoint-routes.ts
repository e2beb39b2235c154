// Mounts the data-import endpoints the catalog declares (shared/catalog/endpoints.ts), as worker/ runs
// the jobs of the job catalog: for each endpoint, in order, the steps its declaration asks for before
// its handler — the run ledger for a write it records, the queued-write cap for a request that waits
// for its job, a stream slot for a streamed answer, the query-parameter check. The handlers themselves
// are registered at `routeOf(declaration)` (api/endpoint-path.ts) by the component's routes file (api/routes/).
import express, { type RequestHandler } from 'express';
import { DATA_IMPORT_ENDPOINTS, ledgerEndpointOf } from '../shared/catalog/endpoints';
import type { Config } from '../shared/platform/config';
import { takesThinPath, type EndpointDeclaration } from '../shared/requests/endpoint-declaration';
import { MOUNTS, routeOf, type Mount } from './endpoint-path';
import { callerOf } from './auth/authenticate';
import { ConcurrencySlots, holdSlot } from './load-shedding';
import { onlyQueryParameters } from './routes/query-parameters';
import { recordRun, type LedgerContext } from './run-ledger';
import { holdStreamSlot, type StreamSlots } from './streaming';

/** What the steps share across endpoints: one queued-write cap and the process's stream slots per app. */
export interface EndpointSteps {
  ledger: LedgerContext;
  config: Config;
  streams: StreamSlots;
}

/**
 * The steps of every declared endpoint under `mount`: as a router (the routes files add the handlers),
 * and, for the endpoints on the thin path (api/thin-path.ts), as lists holding the same queued-write
 * cap and stream slots, so both paths count together.
 */
export interface DeclaredEndpoints {
  router: express.Router;
  thinSteps: Map<EndpointDeclaration, RequestHandler[]>;
}

export function declaredEndpoints(mount: Mount, deps: EndpointSteps): DeclaredEndpoints {
  const router = express.Router();
  const thinSteps = new Map<EndpointDeclaration, RequestHandler[]>();
  const cap = queuedWriteCap(deps.config);
  for (const declaration of DATA_IMPORT_ENDPOINTS.filter((e) => e.path.startsWith(`${MOUNTS[mount]}/`))) {
    if (hasSteps(declaration)) router[declaration.method](routeOf(declaration), ...stepsOf(declaration, deps, cap));
    // The thin path's answer notes its body for the ledger itself (no res.json wrapper per request).
    if (takesThinPath(declaration)) thinSteps.set(declaration, stepsOf(declaration, deps, cap, { bodyNoted: true }));
  }
  return { router, thinSteps };
}

/** Whether the endpoint has steps before its handler (then its path is registered twice: steps, handler). */
export function hasSteps(declaration: EndpointDeclaration): boolean {
  return (
    declaration.ledger !== undefined ||
    declaration.loadShedding !== undefined ||
    declaration.method === 'post' ||
    declaration.query !== undefined
  );
}

function stepsOf(
  declaration: EndpointDeclaration,
  deps: EndpointSteps,
  cap: RequestHandler,
  options: { bodyNoted?: boolean } = {},
): RequestHandler[] {
  const steps: RequestHandler[] = [];
  const { ledger } = declaration;
  if (ledger) {
    steps.push(recordRun(deps.ledger, { endpoint: ledgerEndpointOf(declaration), ...ledger }, options));
  }
  if (declaration.loadShedding === 'queued-write') steps.push(cap);
  if (declaration.loadShedding === 'stream') {
    steps.push(holdStreamSlot(deps.streams.organisations, (req) => `org:${callerOf(req).organisationId}`));
  }
  if (declaration.method === 'post' || declaration.query) steps.push(onlyQueryParameters(...(declaration.query ?? [])));
  return steps;
}

/**
 * Queued writes hold their HTTP request open for up to RESULT_WAIT_MS while the workers run: bound how
 * many wait at once per organisation and per process, so a burst answers 429/503 at once instead of
 * piling up sockets, queue listeners and jobs that delay every other tenant.
 */
function queuedWriteCap(config: Config): RequestHandler {
  const slots = new ConcurrencySlots('queued writes waiting for their answer', {
    perProcess: config.QUEUED_REQUESTS_PER_PROCESS,
    perOrganisation: config.QUEUED_REQUESTS_PER_ORGANISATION,
    retryAfterSeconds: config.LOAD_SHED_RETRY_AFTER_SECONDS,
  });
  return holdSlot(slots, (req) => `org:${req.caller?.organisationId ?? 'anonymous'}`);
}
