// What a payment-instruction job carries: the request as the API validated it (plain JSON already).
import type { JobPayload } from '../requests/job-declaration';
import { parseOrThrow } from '../platform/validation';
import { CreatePaymentInstructionRequest, type CreatePaymentInstruction } from './payment-instruction.schemas';

export const paymentInstructionJobPayload: JobPayload<CreatePaymentInstruction> = {
  // 2: dry_run (a version-1 job is validated again, so it reads as dry_run false).
  version: 2,
  validate: (json) => parseOrThrow(CreatePaymentInstructionRequest, json),
  fromJob: (json) => json as CreatePaymentInstruction,
};
