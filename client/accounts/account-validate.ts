// `validate accounts`: one account checked offline by the schema the service stages it with
// (EnergyAccountSchema: every field, bound and cross-check that needs no database). What needs the
// database (operations team, tariff codes, meter points on live accounts, the supplier) is found by `send`.
import { EnergyAccountSchema } from '../../shared/account-import/energy-account';
import type { FieldError } from '../../shared/platform/errors';
import { parseOrThrow } from '../../shared/platform/validation';

export function validateAccountItem(item: Record<string, unknown>): FieldError[] {
  try {
    parseOrThrow(EnergyAccountSchema, item);
    return [];
  } catch (err) {
    const errors = (err as { errors?: FieldError[] }).errors;
    if (!Array.isArray(errors)) throw err;
    return errors;
  }
}
