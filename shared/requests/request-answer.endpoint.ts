// GET /v1/data-import/requests/{request_id}/: a queued write's stored answer (its 503's Location). The
// handler is api/routes/requests.routes.ts.
import { z } from 'zod';
import { PaymentInstructionCreated, TransactionsCreated } from '../openapi/bodies.schemas';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { jsonResponse, REQUEST_ID_HEADER } from '../openapi/responses';
import { annotate } from '../openapi/schema-registry';
import { endpoint, pathOf } from './endpoint-declaration';

export const requestAnswerEndpoint = endpoint({
  method: 'get',
  path: '/v1/data-import/requests/{request_id}/',
  operationId: 'getQueuedRequestAnswer',
  errors: ERRORS.requestAnswer,
  describe: () => ({
    tag: 'Post account import',
    summary: "Poll a queued write's answer",
    description:
      'The answer of a transactions or payment-instruction request that answered 503 (its `Location`), with the status and body ' +
      'the request itself would have answered (201, 400, 404, 500 "retry as it is", or 503 `queue_unavailable`); while its ' +
      'work is still queued or running, 503 `result_pending` again. A client without an `Idempotency-Key` polls this instead ' +
      "of posting again. Only the caller's own organisation's requests; answers are kept 24 h after they finish.",
    request: { params: z.object({ request_id: annotate(z.uuid(), { description: 'The `request_id` of the 503.' }) }) },
    answers: {
      201: jsonResponse(
        'The stored answer of the request.',
        z.union([TransactionsCreated, PaymentInstructionCreated]),
        {
          transactions: { value: ex.transactionsCreated },
          paymentInstruction: { value: ex.paymentInstructionCreated },
        },
        REQUEST_ID_HEADER,
      ),
    },
  }),
});

/** Where a client polls a queued request's answer (GET, same organisation only). */
export const requestLocation = (requestId: string): string => pathOf(requestAnswerEndpoint, { request_id: requestId });
