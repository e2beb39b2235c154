// POST /v1/graphql/ with the one mutation clients need: obtainToken(input: {APIKey | refreshToken}).
// Errors follow GraphQL over HTTP: status 200, `errors[].extensions.code` stable.
import {
  GraphQLError,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
  GraphQLString,
} from 'graphql';
import { createHandler } from 'graphql-http/lib/use/express';
import type { RequestHandler, Response } from 'express';
import { isDatabaseUnavailable } from '../../shared/platform/pg-errors';
import {
  obtainTokenWithApiKey,
  obtainTokenWithRefreshToken,
  TokenRequestError,
  type AuthDeps,
} from '../../shared/auth/auth.use-cases';
import { boundedParse, maxDepthRule, singleTokenRequestRule } from './graphql-limits';

const GenericScalar = new GraphQLScalarType({
  name: 'GenericScalar',
  description: 'Any JSON value.',
  serialize: (value) => value,
});

const ObtainTokenInput = new GraphQLInputObjectType({
  name: 'ObtainTokenInput',
  fields: {
    APIKey: { type: GraphQLString, description: 'Organisation API key. Use alone.' },
    refreshToken: { type: GraphQLString, description: 'A refresh token from an earlier call. Use alone.' },
  },
});

const ObtainToken = new GraphQLObjectType({
  name: 'ObtainToken',
  fields: {
    token: {
      type: new GraphQLNonNull(GraphQLString),
      description: 'Send as `Authorization: Token <token>`. Valid 60 minutes.',
    },
    payload: { type: new GraphQLNonNull(GenericScalar), description: 'The decoded claims of the token.' },
    refreshToken: { type: GraphQLString, description: 'Single use; trade it for a new token before it expires.' },
    refreshExpiresIn: { type: GraphQLInt, description: 'Unix timestamp at which the refresh token expires.' },
  },
});

function tokenError(code: string, message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code, errorType: 'VALIDATION' } });
}

/** What a resolver is handed (the express adapter's request context): the response, to mark it. */
type ResolverContext = { res?: Response };

// A resolver that met a refused or dropped database connection marks its response so; the handler then
// answers 503 with Retry-After (nothing was issued: retry the same mutation) instead of 200.
const UNAVAILABLE = 'graphqlDatabaseUnavailable';

export function buildAuthSchema(deps: AuthDeps): GraphQLSchema {
  return new GraphQLSchema({
    query: new GraphQLObjectType({
      name: 'Query',
      fields: { ping: { type: GraphQLString, resolve: () => 'pong' } },
    }),
    mutation: new GraphQLObjectType({
      name: 'Mutation',
      fields: {
        obtainToken: {
          type: ObtainToken,
          args: { input: { type: new GraphQLNonNull(ObtainTokenInput) } },
          resolve: async (
            _root,
            args: { input: { APIKey?: string | null; refreshToken?: string | null } },
            context: ResolverContext | undefined,
          ) => {
            const { APIKey, refreshToken } = args.input;
            const given = [APIKey, refreshToken].filter((v) => v !== undefined && v !== null);
            if (given.length !== 1) {
              throw tokenError('invalid_input', 'Provide exactly one of APIKey or refreshToken.');
            }
            try {
              return APIKey != null
                ? await obtainTokenWithApiKey(deps, APIKey)
                : await obtainTokenWithRefreshToken(deps, refreshToken as string);
            } catch (err) {
              if (err instanceof TokenRequestError) throw tokenError(err.code, err.message);
              if (isDatabaseUnavailable(err)) {
                if (context?.res) context.res.locals[UNAVAILABLE] = true;
                throw new GraphQLError(
                  'The database is not accepting connections right now. Retry after Retry-After.',
                  {
                    extensions: { code: 'database_unavailable', errorType: 'APPLICATION' },
                  },
                );
              }
              throw err;
            }
          },
        },
      },
    }),
  });
}

export function graphqlHandler(deps: AuthDeps, retryAfterSeconds: number): RequestHandler {
  const handler = createHandler({
    schema: buildAuthSchema(deps),
    context: (req): ResolverContext => ({ res: req.context.res }),
    parse: boundedParse,
    validationRules: [maxDepthRule, singleTokenRequestRule],
    // Unexpected resolver failures must not leak internals into `errors[].message`; syntax and
    // validation errors of the query itself pass through as graphql-js words them.
    formatError: (err) =>
      err instanceof GraphQLError && err.originalError && !(err.originalError instanceof GraphQLError)
        ? new GraphQLError('Internal error.', { extensions: { code: 'server_error', errorType: 'APPLICATION' } })
        : err,
  });
  return (req, res, next) => {
    // The adapter writes its status with writeHead: a marked response goes out as 503 instead.
    const writeHead = res.writeHead.bind(res) as (status: number, ...rest: unknown[]) => Response;
    res.writeHead = ((status: number, ...rest: unknown[]) => {
      if (res.locals[UNAVAILABLE] !== true) return writeHead(status, ...rest);
      res.setHeader('Retry-After', String(retryAfterSeconds));
      const headers = rest.find((r) => typeof r === 'object');
      return headers === undefined ? writeHead(503) : writeHead(503, headers);
    }) as Response['writeHead'];
    handler(req, res, next);
  };
}
