// The OpenAPI 3.1 document of the whole HTTP API: the data-import endpoints from their declarations
// (shared/catalog/openapi-document.ts hands over the catalog's list, after naming the components' zod
// schemas the routes parse with), plus the service's own paths and the shapes in this folder.
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import type { DocsConfig } from './docs-config';
import { streamShares } from '../platform/stream-shares';
import type { DocumentedEndpoint } from './documented-endpoint';
import { GLOBAL_ERRORS } from './error-codes';
import { errorResponses, withErrorCodes } from './responses';
import { registerServicePaths } from './service.paths';

export type { DocsConfig };

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

const TAGS = [
  { name: 'Authentication', description: 'Trade the organisation API key for a token.' },
  { name: 'Post account import', description: 'Add data to an account that has been imported.' },
  { name: 'Account import', description: 'Validate and stage accounts, and follow their creation.' },
  { name: 'Migration progress', description: 'Status of account imports.' },
  { name: 'Operations', description: 'Health, readiness and metrics for operators.' },
  { name: 'Documentation', description: 'This document and its page.' },
];

function describeApi(config: DocsConfig): string {
  const mib = (config.BODY_LIMIT_BYTES / 1024 / 1024).toFixed(1);
  return [
    'Adds notes, transactions, historical statements and payment instructions to accounts migrated from an external system, ' +
      'and reports migration progress. Every account is identified by `import_supplier` + `external_account_number`.',
    '**Authentication.** Obtain a token with the `obtainToken` GraphQL mutation (POST /v1/graphql/) and send it as ' +
      '`Authorization: Token <token>` (`Bearer <token>` and the bare token are accepted too). A caller sees only the import ' +
      "suppliers its organisation may use; another organisation's accounts answer exactly as missing ones do.",
    `**Limits.** Bodies up to ${mib} MiB of JSON; up to ${config.MAX_ITEMS_PER_REQUEST} items per request; ` +
      `${config.ORG_RATE_LIMIT_PER_MINUTE} requests per minute per organisation on /v1/data-import/ (429 \`rate_limited\` with \`Retry-After\`). ` +
      `At most ${streamShares(config).organisations.perOwner} list downloads and ${config.QUEUED_REQUESTS_PER_ORGANISATION} queued writes ` +
      'at a time per organisation per server (429 `too_many_concurrent_requests`; a full server answers 503 `server_busy`, ' +
      'no free database connection 503 `database_busy`; all with `Retry-After`: retry as it is).',
    '**Errors.** Every error body has a stable `code`; `detail` is for humans and may change. Validation failures answer 400 ' +
      'with `{detail, code, errors: [{detail, code, attr}]}` (the transactions endpoint answers failing transactions with its ' +
      'own `TRANSACTION_IMPORT_ERROR` body). Each operation lists its codes in its description and in `x-error-codes`. Any ' +
      'unknown path answers 404 `route_not_found`.',
    '**Formats.** Dates `YYYY-MM-DD`; datetimes ISO 8601 with seconds, answered in UTC (`2020-02-01T12:00:00Z`). Omit an optional ' +
      'field that has no data. Fields not documented here are ignored.',
  ].join('\n\n');
}

/** One operation, read from its declaration: every data-import endpoint takes the token. */
function registerEndpoint(registry: OpenAPIRegistry, declaration: DocumentedEndpoint, config: DocsConfig): void {
  const docs = declaration.describe(config);
  registry.registerPath({
    method: declaration.method,
    path: declaration.path,
    operationId: declaration.operationId,
    tags: [docs.tag],
    summary: docs.summary,
    ...withErrorCodes(docs.description, declaration.errors),
    ...docs.extensions,
    security: [{ Token: [] }],
    ...(docs.request ? { request: docs.request } : {}),
    responses: { ...docs.answers, ...errorResponses(declaration.errors, docs.errorExamples) },
  });
}

/** The document of `endpoints`; the components' schemas are named first (shared/catalog/component-schemas.ts). */
export function buildDocument(config: DocsConfig, endpoints: readonly DocumentedEndpoint[]): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'Token', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description:
      'The value is `Token <token>`, the token coming from the `obtainToken` mutation. The bare token is accepted too.',
  });
  registry.registerComponent('securitySchemes', 'MetricsToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The METRICS_TOKEN the service is configured with.',
  });
  registerServicePaths(registry, config);
  for (const declaration of endpoints) registerEndpoint(registry, declaration, config);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Customer-migration data-import API',
      version: '1',
      description: describeApi(config),
    },
    servers: [{ url: '/', description: 'The service that serves this document.' }],
    tags: TAGS,
  });
  return {
    ...document,
    'x-error-codes': Object.fromEntries(Object.entries(GLOBAL_ERRORS).map(([s, codes]) => [s, Object.keys(codes)])),
  };
}
