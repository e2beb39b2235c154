// What a component declares about each HTTP endpoint of the data-import API, in one object: its method
// and path, its request and answer schemas (as the OpenAPI document renders them), the error codes it
// can answer, which account a write names (for the run ledger), whether its work is queued and on
// which job, and how load shedding bounds it. The twin of job-declaration.ts: the declarations live
// with their components (shared/notes/note.endpoint.ts, …) and are listed in shared/catalog/endpoints.ts;
// api/ mounts each at its path (api/endpoint-routes.ts), and the OpenAPI document, the run ledger's
// endpoints, the queued-write cap and the query-parameter check are read from them.
//
// Paths are persisted (run_ledger.endpoint, clients' scripts): never rename one in place.
import type { DocumentedEndpoint } from '../openapi/documented-endpoint';
import type { LedgerSubjectFields } from '../runs/ledger-entries';
import type { AnyQueuedRequestJob } from './job-declaration';

export interface EndpointDeclaration extends DocumentedEndpoint {
  /**
   * The query parameters it takes: any other is refused (`unknown_query_parameter`) before the handler
   * runs. Left out, a write takes none and a read is not checked.
   */
  query?: readonly string[];
  /**
   * A write recorded in the run ledger: the account it names, read from the request by the same field
   * rules that validate it (shared/runs/ledger-entries.ts). `successFromWorker`: its success is recorded
   * by the job that does the work later (a v2 schedule), its refusals by the API.
   */
  ledger?: { subject: LedgerSubjectFields; successFromWorker?: boolean };
  /** A queued endpoint: the job its work runs in. */
  job?: AnyQueuedRequestJob;
  /**
   * Its load-shedding class: `queued-write`, a request that holds its connection until its job answers
   * (bounded by the queued-write cap, QUEUED_REQUESTS_PER_ORGANISATION and _PER_PROCESS); `stream`, a
   * streamed answer holding one of its organisation's stream slots (api/streaming.ts). Left out: neither.
   */
  loadShedding?: LoadShedding;
  /**
   * How the API reaches it: `thin`, looked up once by method and exact path and run through its own
   * steps only (api/thin-path.ts); `routers`, through Express's routers. Left out: a POST is `thin`
   * (every write of the data-import API), anything else `routers`.
   */
  dispatch?: Dispatch;
}

type LoadShedding = 'queued-write' | 'stream';
type Dispatch = 'thin' | 'routers';

/** Whether the API serves the endpoint on its thin path (the declaration's `dispatch`, or its default). */
export function takesThinPath(declaration: EndpointDeclaration): boolean {
  return (declaration.dispatch ?? (declaration.method === 'post' ? 'thin' : 'routers')) === 'thin';
}

/** Declares an endpoint (an identity, as queuedRequestJob is for jobs). */
export const endpoint = (declaration: EndpointDeclaration): EndpointDeclaration => declaration;

/** `/v1/data-import/runs/{run_id}/` → `/v1/data-import/runs/:run_id/`. */
export function expressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** Fills a declaration's path parameters, each URL-encoded (the `Location` of an answer). */
export function pathOf(declaration: EndpointDeclaration, params: object): string {
  return declaration.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => {
    const value = (params as Record<string, unknown>)[name];
    if (typeof value !== 'string') throw new Error(`${declaration.operationId}: no value for {${name}}`);
    return encodeURIComponent(value);
  });
}
