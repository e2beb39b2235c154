// POST /v1/data-import/payment-instruction/create/, the API's half: it validates, resolves the account
// and queues; the worker's half (verify-and-record.ts) runs in the job declared in
// payment-instruction.job.ts.
import { resolveWritableAccount } from '../accounts/account.use-cases';
import type { Database } from '../platform/db';
import { parseOrThrow } from '../platform/validation';
import type { Answer } from '../requests/answer';
import type { QueuedRequests } from '../requests/queued-request';
import { parseRequestHeaders, type RequestHeaders } from '../requests/request-headers';
import { paymentInstructionJob } from './payment-instruction.job';
import { CreatePaymentInstructionRequest } from './payment-instruction.schemas';

export async function requestPaymentInstruction(
  deps: { db: Database; queued: QueuedRequests },
  req: { organisationId: number; headers: RequestHeaders; httpRequestId?: string; body: unknown },
): Promise<Answer> {
  // Bad input of any kind answers 400 before the account is looked up (as on every endpoint).
  const headers = parseRequestHeaders(req.headers);
  const instruction = parseOrThrow(CreatePaymentInstructionRequest, req.body);
  const account = await resolveWritableAccount(deps.db, req.organisationId, instruction);
  return deps.queued.submit({
    job: paymentInstructionJob,
    organisationId: req.organisationId,
    accountId: account.accountId,
    ...headers,
    httpRequestId: req.httpRequestId,
    payload: instruction,
  });
}
