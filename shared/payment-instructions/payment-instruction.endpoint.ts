// POST /v1/data-import/payment-instruction/create/ (queued on payment-instruction.job.ts): the handler
// is api/routes/payment-instructions.routes.ts.
import { PaymentInstructionCreated } from '../openapi/bodies.schemas';
import { ERRORS } from '../openapi/error-codes';
import * as ex from '../openapi/examples';
import { contractExample, created, QueuedHeaders, queuedProse } from '../openapi/operation-parts';
import { jsonRequest, jsonResponse, REPLAYED_HEADER, REQUEST_ID_HEADER } from '../openapi/responses';
import { named } from '../openapi/schema-registry';
import { endpoint } from '../requests/endpoint-declaration';
import { paymentInstructionJob } from './payment-instruction.job';
import { CreatePaymentInstructionRequest } from './payment-instruction.schemas';

export const createPaymentInstructionEndpoint = endpoint({
  method: 'post',
  path: `/v1/data-import/${paymentInstructionJob.endpoint}/`,
  operationId: 'createPaymentInstruction',
  errors: ERRORS.paymentInstructions,
  ledger: { subject: { supplier: 'import_supplier', account: ['external_account_number'], dryRun: ['dry_run'] } },
  job: paymentInstructionJob,
  loadShedding: 'queued-write',
  describe: (config) => ({
    tag: 'Post account import',
    summary: 'Create a payment instruction',
    description:
      'Verifies the instruction at the payment vendor (for STRIPE: the PaymentMethod must exist, be a card, be attached to a ' +
      'customer and not be expired) and stores it. Sending the same vendor and reference again answers 201 without asking the ' +
      `vendor. A 400 must not be retried as it is; a 500 should be. With \`dry_run: true\` (an addition to the contract) the ` +
      `vendor is asked and every check runs, the answer is the same, and nothing is written. ${queuedProse(config.RESULT_WAIT_MS)}`,
    request: {
      headers: QueuedHeaders,
      body: jsonRequest(
        named('PaymentInstructionRequest', CreatePaymentInstructionRequest),
        contractExample(ex.paymentInstructionRequest),
      ),
    },
    answers: {
      201: jsonResponse(
        created('Stored (or already stored).'),
        PaymentInstructionCreated,
        { created: { value: ex.paymentInstructionCreated } },
        { ...REQUEST_ID_HEADER, ...REPLAYED_HEADER },
      ),
    },
    errorExamples: { 400: { examples: { invalid_input: { value: ex.invalidInput.paymentInstructions } } } },
  }),
});
