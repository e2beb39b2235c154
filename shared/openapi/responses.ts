// Building blocks of an operation's responses: JSON bodies with named examples, the error responses
// of an operation's error catalogue (one example per code), and the headers some of them carry.
import type { ResponseConfig } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ErrorBody, PendingErrorBody, ServerErrorBody, ValidationErrorBody } from './bodies.schemas';
import { describeErrors, type OperationErrors } from './error-codes';
import { errorExamples, type ErrorExampleCode } from './examples';

export type Examples = Record<string, { summary?: string; description?: string; value: unknown }>;
type Headers = NonNullable<ResponseConfig['headers']>;

const integerHeader = (description: string) => ({ description, schema: { type: 'integer' as const, minimum: 0 } });

export const REPLAYED_HEADER = {
  'Idempotent-Replayed': {
    description: '`true` when the answer is the one stored for an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string' as const },
  },
};

export const REQUEST_ID_HEADER = {
  'X-Request-Id': {
    description:
      'Id the service gave this request, also in its log lines. An incoming `X-Request-Id` is never used as the id: it is logged beside it (`client_request_id`, at most 128 characters, control characters removed).',
    schema: { type: 'string' as const },
  },
};

const RATE_LIMIT_HEADERS = {
  RateLimit: {
    description: "Requests left and seconds to the window's reset (IETF draft-8 `RateLimit`).",
    schema: { type: 'string' as const },
  },
  'RateLimit-Policy': {
    description: 'The limit and window (IETF draft-8 `RateLimit-Policy`).',
    schema: { type: 'string' as const },
  },
};

const HEADERS_BY_STATUS: Record<number, Headers> = {
  401: {
    'WWW-Authenticate': { description: 'Always `Token`: the scheme that is accepted.', schema: { type: 'string' } },
  },
  429: { 'Retry-After': integerHeader('Seconds until the rate-limit window resets.'), ...RATE_LIMIT_HEADERS },
  503: {
    'Retry-After': integerHeader('Seconds to wait before polling `Location` or retrying.'),
    Location: {
      description: "Where the request's answer can be polled: `/v1/data-import/requests/{request_id}/`.",
      schema: { type: 'string' },
    },
  },
};

const DESCRIPTION_BY_STATUS: Record<number, string> = {
  400: 'Validation failed; nothing was written.',
  401: 'Missing, malformed or expired credentials.',
  404: 'Not found.',
  413: 'Body too large.',
  415: 'Body is not JSON.',
  422: 'Idempotency-Key reused with a different request.',
  429: 'Rate limited.',
  500: 'Server error. The queued writes\' 500s mean "retry the request as it is".',
  503: 'The answer is not ready, or the queue is unavailable.',
};

export function jsonResponse(
  description: string,
  schema: z.ZodType,
  examples?: Examples,
  headers?: Headers,
): ResponseConfig {
  return {
    description,
    ...(headers ? { headers } : {}),
    content: { 'application/json': { schema, ...(examples ? { examples } : {}) } },
  };
}

export function jsonRequest(schema: z.ZodType, examples: Examples) {
  return { required: true, content: { 'application/json': { schema, examples } } };
}

function exampleFor(status: number, code: string, when: string): unknown {
  if (code in errorExamples) return errorExamples[code as ErrorExampleCode];
  if (status === 400) return { detail: when, code, errors: [{ detail: when, code, attr: 'non_field_errors' }] };
  return { detail: when, code };
}

function schemaFor(status: number): z.ZodType {
  if (status === 400) return ValidationErrorBody;
  if (status === 500) return ServerErrorBody;
  if (status === 503) return PendingErrorBody;
  return ErrorBody;
}

/**
 * One response per status of the operation's catalogue, each with an example per code. `overrides`
 * widen a status's schema (the transactions endpoint's own 400 body) and add examples; an override
 * example named after a code replaces the generated one.
 */
export function errorResponses(
  errors: OperationErrors,
  overrides: Record<number, { schema?: z.ZodType; examples: Examples }> = {},
): Record<number, ResponseConfig> {
  return Object.fromEntries(
    Object.entries(errors.statuses).map(([key, codes]) => {
      const status = Number(key);
      const generated: Examples = Object.fromEntries(
        Object.entries(codes).map(([code, when]) => [code, { summary: when, value: exampleFor(status, code, when) }]),
      );
      const override = overrides[status];
      const examples: Examples = { ...generated };
      for (const [name, example] of Object.entries(override?.examples ?? {})) {
        examples[name] = { summary: generated[name]?.summary, ...example };
      }
      const schema = override?.schema ?? schemaFor(status);
      return [
        status,
        jsonResponse(DESCRIPTION_BY_STATUS[status] ?? 'Error.', schema, examples, HEADERS_BY_STATUS[status]),
      ];
    }),
  );
}

/** The description with the operation's error table appended, and the `x-error-codes` extension. */
export function withErrorCodes(description: string, errors: OperationErrors) {
  const { table, extension } = describeErrors(errors);
  return {
    description: table ? `${description}\n\n${table}` : description,
    'x-error-codes': extension,
    ...(errors.fieldCodes ? { 'x-field-error-codes': Object.keys(errors.fieldCodes) } : {}),
  };
}
