// The transactions endpoint's own 400 body (spec: Endpoints → transactions/create): its top level names
// the first failing transaction; `errors` holds the field errors of every failing transaction.
import { AppError, type FieldError } from '../platform/errors';

export interface TransactionImportErrorBody {
  status: 'TRANSACTION_IMPORT_ERROR';
  error_detail: string;
  transaction_data: unknown;
  errors: FieldError[];
}

export class TransactionImportError extends AppError {
  constructor(
    readonly transactionData: unknown,
    readonly errors: FieldError[],
    errorDetail: string,
  ) {
    super(400, 'transaction_import_error', errorDetail);
  }

  override toBody(): TransactionImportErrorBody {
    return {
      status: 'TRANSACTION_IMPORT_ERROR',
      error_detail: this.message,
      transaction_data: this.transactionData,
      errors: this.errors,
    };
  }
}
