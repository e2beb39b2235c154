// Mounts the data-import endpoints the catalog declares (shared/catalog/endpoints.ts), as worker/ runs
// the jobs of the job catalog: for each endpoint, in order, the steps its declaration asks for before
// its handler — the run ledger for a write it records, the queued-write cap for a request that waits
// for its job, a stream slot for a streamed answer, the query-parameter check. The handlers themselves
// are registered at `routeOf(declaration)` by the component's routes file (api/routes/).
import express, { type Request, type RequestHandler } from 'express';
import { DATA_IMPORT_ENDPOINTS, ledgerEndpointOf } from '../shared/catalog/endpoints';
import type { Config } from '../shared/platform/config';
import { expressPath, waitsForJob, type EndpointDeclaration } from '../shared/requests/endpoint-declaration';
import { callerOf } from './auth/authenticate';
import { ConcurrencySlots, holdSlot } from './load-shedding';
import { onlyQueryParameters } from './routes/query-parameters';
import { recordRun, type LedgerContext } from './run-ledger';
import { holdStreamSlot, type StreamSlots } from './streaming';

const MOUNTS = { v1: '/v1/data-import', v2: '/v2/data-import' } as const;
type Mount = keyof typeof MOUNTS;

/** The declaration's path under its router's mount (`/v1/data-import`), in Express's form. */
export function routeOf(declaration: EndpointDeclaration): string {
  const mount = Object.values(MOUNTS).find((m) => declaration.path.startsWith(`${m}/`));
  if (mount === undefined) throw new Error(`${declaration.operationId}: ${declaration.path} is under no mount`);
  return expressPath(declaration.path.slice(mount.length));
}

/** A path parameter of a declared endpoint (the route matched, so it is there). */
export function paramOf(req: Request, name: string): string {
  const value = req.params[name];
  if (typeof value !== 'string') throw new Error(`the route has no path parameter ${name}`);
  return value;
}

/** What the steps share across endpoints: one queued-write cap and the process's stream slots per app. */
export interface EndpointSteps {
  ledger: LedgerContext;
  config: Config;
  streams: StreamSlots;
}

/** A router with every declared endpoint under `mount` given its steps; the routes files add the handlers. */
export function declaredEndpoints(mount: Mount, deps: EndpointSteps): express.Router {
  const router = express.Router();
  const cap = queuedWriteCap(deps.config);
  for (const declaration of DATA_IMPORT_ENDPOINTS.filter((e) => e.path.startsWith(`${MOUNTS[mount]}/`))) {
    const steps = stepsOf(declaration, deps, cap);
    if (steps.length > 0) router[declaration.method](routeOf(declaration), ...steps);
  }
  return router;
}

function stepsOf(declaration: EndpointDeclaration, deps: EndpointSteps, cap: RequestHandler): RequestHandler[] {
  const steps: RequestHandler[] = [];
  const { ledger } = declaration;
  if (ledger) {
    steps.push(recordRun(deps.ledger, { endpoint: ledgerEndpointOf(declaration), ...ledger }));
  }
  if (waitsForJob(declaration)) steps.push(cap);
  if (declaration.streams) {
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
