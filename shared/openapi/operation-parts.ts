// Pieces several endpoint declarations describe themselves with: the queued writes' headers and
// wait, and the path parameters that name a supplier or an account.
import { z } from 'zod';
import * as ex from './examples';
import { annotate } from './schema-registry';

/** Stripe's rule, as shared/requests/request-headers.ts checks it. */
const IdempotencyKeyHeader = annotate(
  z
    .string()
    .regex(/^[\x20-\x7e]{1,255}$/)
    .optional(),
  {
    description:
      'Makes a retry safe: the same key with the same request within 24 h replays the stored answer (also after a 503 ' +
      '`result_pending`); the same key with a different request is refused with 422. 1 to 255 printable ASCII characters.',
    example: '4f8d1c2e-7a2b-4c55-9d1e-acme-0001',
  },
);

/** As shared/requests/request-headers.ts checks it. */
const RunIdHeader = annotate(
  z
    .string()
    .regex(/^[\x20-\x7e]{1,64}$/)
    .optional(),
  {
    description:
      "The client's migration run, stored with the request so support staff can find a run's refusals. 1 to 64 printable ASCII characters.",
    example: 'acme-2026-11-25-transactions',
  },
);

export const QueuedHeaders = z.object({ 'Idempotency-Key': IdempotencyKeyHeader, 'Data-Import-Run-Id': RunIdHeader });

export const queryBoolean = (fallback: boolean, description: string) =>
  annotate(z.boolean().optional(), {
    description: `${description} Also accepts \`1\`/\`0\`, in any case.`,
    default: fallback,
  });

/** What every waiting queued write says of its wait. */
export const queuedProse = (waitMs: number) =>
  `The work is queued and run by a worker under a per-account lock; the answer is the one the worker stored. ` +
  `A request still unfinished after ${waitMs / 1000} s answers 503 \`result_pending\` and its work goes on: poll its \`Location\` ` +
  '(`GET /v1/data-import/requests/{request_id}/`) or retry it with the same `Idempotency-Key` to collect the answer. A replayed ' +
  'answer carries `Idempotent-Replayed: true`.';

export const created = (description: string) => `${description} Responses carry \`X-Request-Id\`.`;

export const SupplierCodeParam = annotate(z.string().min(1), {
  description: 'Code of an import supplier the caller may use.',
  example: ex.SUPPLIER,
});

export const ExternalAccountParam = annotate(z.string().min(1), {
  description: 'Account number in the external system.',
  example: ex.EXTERNAL_ACCOUNT,
});

/** The published contract's example of a request body. */
export const contractExample = (value: unknown) => ({
  contract: { summary: "The published contract's example", value },
});
