// What the OpenAPI document reads of an HTTP endpoint: its method and path, its error codes and its
// operation. An endpoint declaration (shared/requests/endpoint-declaration.ts) is one of these and more.
import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import type { DocsConfig } from './docs-config';
import type { OperationErrors } from './error-codes';
import type { Examples } from './responses';

/** What the OpenAPI document says of an endpoint beyond its method, path and error codes. */
interface EndpointDocs {
  tag: string;
  summary: string;
  /** The prose; the table of error codes is appended from `errors`. */
  description: string;
  request?: RouteConfig['request'];
  /** The answers other than errors, by status. */
  answers: Record<number, ResponseConfig>;
  /** Error responses that carry another schema or examples of their own (a code's example replaces the generated one). */
  errorExamples?: Record<number, { schema?: z.ZodType; examples: Examples }>;
  /** Extensions of the operation (`x-…`). */
  extensions?: Record<`x-${string}`, unknown>;
}

export interface DocumentedEndpoint {
  method: 'get' | 'post';
  /** The whole path in OpenAPI form (`/v1/data-import/runs/{run_id}/`); Express's `:run_id` form is derived. */
  path: string;
  operationId: string;
  /** Every error code it can answer, by status, with when. */
  errors: OperationErrors;
  /** Its OpenAPI operation, for the process's configured limits. */
  describe(config: DocsConfig): EndpointDocs;
}
