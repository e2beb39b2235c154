// Everything besides the data-import operations: signing in (GraphQL), health, metrics, and this
// documentation itself.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { GraphQLRequest, GraphQLResponse, Liveness, Readiness, ValidationErrorBody } from './bodies.schemas';
import { ERRORS, GRAPHQL_ERROR_CODES } from './error-codes';
import * as ex from './examples';
import { errorResponses, jsonRequest, jsonResponse, withErrorCodes } from './responses';
import type { DocsConfig } from './docs-config';

export const OPENAPI_PATH = '/v1/data-import/openapi.json';
export const DOCS_PATH = '/docs';

export function registerServicePaths(registry: OpenAPIRegistry, config: DocsConfig): void {
  registerTokenPath(registry, config);
  registerHealthPaths(registry);
  registerDocumentationPaths(registry);
}

function registerTokenPath(registry: OpenAPIRegistry, config: DocsConfig): void {
  const graphqlCodes = Object.entries(GRAPHQL_ERROR_CODES)
    .map(([code, when]) => `| \`${code}\` | ${when} |`)
    .join('\n');
  registry.registerPath({
    method: 'post',
    path: '/v1/graphql/',
    operationId: 'obtainToken',
    tags: ['Authentication'],
    summary: 'Obtain a token (GraphQL mutation obtainToken)',
    ...withErrorCodes(
      'GraphQL over HTTP. The one mutation, `obtainToken(input: ObtainTokenInput!)`, trades the organisation API key ' +
        '(`APIKey`) or a refresh token (`refreshToken`), exactly one of them, for an access token and a new single-use ' +
        `refresh token. The access token lasts ${config.TOKEN_TTL_SECONDS / 60} minutes, the refresh token ` +
        `${config.REFRESH_TOKEN_TTL_SECONDS / 86_400} days; a refresh token used twice revokes every token issued from it. ` +
        `Limited to ${config.TOKEN_RATE_LIMIT_PER_MINUTE} requests per minute per client address.\n\n` +
        'A GraphQL error answers HTTP 200 (with `Accept: application/json`) with `data.obtainToken: null` and ' +
        '`errors[].extensions.code`:\n\n| Code | When |\n|---|---|\n' +
        `${graphqlCodes}\n\nA request that is not a GraphQL request (no \`query\`, wrong types) answers 400 with \`errors\`; ` +
        'an `Accept` header that allows neither JSON type answers 406.',
      ERRORS.obtainToken,
    ),
    'x-graphql-error-codes': Object.keys(GRAPHQL_ERROR_CODES),
    security: [],
    request: {
      body: jsonRequest(GraphQLRequest, {
        apiKey: { summary: 'Sign in with the organisation API key', value: ex.obtainTokenWithApiKey },
        refreshToken: { summary: 'Renew with a refresh token', value: ex.obtainTokenWithRefreshToken },
      }),
    },
    responses: {
      200: jsonResponse('The GraphQL result: `data`, or `errors` with a stable `extensions.code`.', GraphQLResponse, {
        token: { summary: 'Signed in', value: ex.tokenObtained },
        refused: { summary: 'invalid_api_key', value: ex.tokenRefused },
      }),
      ...errorResponses(ERRORS.obtainToken, {
        400: {
          schema: z.union([ValidationErrorBody, GraphQLResponse]),
          examples: {
            notGraphQL: { summary: 'Not a GraphQL request', value: { errors: [{ message: 'Missing query' }] } },
          },
        },
      }),
      406: {
        description: 'The `Accept` header allows neither `application/json` nor `application/graphql-response+json`.',
      },
    },
  });
}

function registerHealthPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tags: ['Operations'],
    summary: 'Liveness',
    description: 'Answers while the process serves HTTP; checks nothing else.',
    security: [],
    responses: { 200: jsonResponse('Alive.', Liveness, { ok: { value: { status: 'ok' } } }) },
  });

  const ready = { status: 'ready', failing: [], checks: { postgres: 'ok', redis: 'ok', workers: 'ok' } };
  const unavailable = {
    status: 'unavailable',
    failing: ['redis'],
    checks: { postgres: 'ok', redis: 'failing', workers: 'none' },
  };
  registry.registerPath({
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tags: ['Operations'],
    summary: 'Readiness',
    description:
      'Checks PostgreSQL and Redis (each check times out after 1 s) and reports, without failing, whether some worker sent a heartbeat in the last 15 s. Answers 503 `stopping` once the process is shutting down.',
    security: [],
    responses: {
      200: jsonResponse('Ready.', Readiness, { ready: { value: ready } }),
      503: jsonResponse('A check failed, or the process is stopping.', Readiness, {
        unavailable: { value: unavailable },
      }),
    },
  });

  registry.registerPath({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tags: ['Operations'],
    summary: 'Prometheus metrics',
    ...withErrorCodes(
      'HTTP, queue, database-pool and (with in-process workers) job and circuit-breaker metrics in the Prometheus text format. ' +
        'Needs `Authorization: Bearer <METRICS_TOKEN>`; without a configured METRICS_TOKEN it always answers 401.',
      ERRORS.metrics,
    ),
    security: [{ MetricsToken: [] }],
    responses: {
      200: {
        description: 'Prometheus text exposition format.',
        content: { 'text/plain': { schema: z.string(), example: '# HELP http_requests_total …\n' } },
      },
      ...errorResponses(ERRORS.metrics),
    },
  });
}

function registerDocumentationPaths(registry: OpenAPIRegistry): void {
  registry.registerPath({
    method: 'get',
    path: OPENAPI_PATH,
    operationId: 'getOpenApiDocument',
    tags: ['Documentation'],
    summary: 'This OpenAPI document',
    description: 'Public, like the published contract it extends: it names no secret and no customer data.',
    security: [],
    responses: {
      200: {
        description: 'OpenAPI 3.1 document.',
        content: { 'application/json': { schema: z.record(z.string(), z.unknown()) } },
      },
    },
  });

  registry.registerPath({
    method: 'get',
    path: DOCS_PATH,
    operationId: 'getDocsPage',
    tags: ['Documentation'],
    summary: 'Human-readable documentation (Swagger UI)',
    description: 'Served with its own assets; loads nothing from other origins.',
    security: [],
    responses: { 200: { description: 'HTML page.', content: { 'text/html': { schema: z.string() } } } },
  });
}
