// Shapes of POST /v1/data-import/historical-statements/create/ (spec "Historical statement"; contract
// §3 for required-ness, nullability and codes). Unknown fields, including the Origin-only ones
// (average_daily_usage, is_reversed, net_emissions, total_*), are stripped, never stored.
import { z } from 'zod';
import { AccountReference, DocumentPath, DryRun, IdentifierField, IsoDate, isCalendarDay } from '../platform/fields';

export const HistoricalStatement = z
  .object({
    bill_period_from_date: IsoDate,
    bill_period_to_date: IsoDate,
    statement_id: IdentifierField(255),
    issued_date: IsoDate.nullable().optional(),
    number: IdentifierField(255).optional(),
    // Minor units of the currency (contract): an integer, never a float.
    gross_amount: z.int().nullable().optional(),
    statement_path: DocumentPath.optional(),
  })
  .superRefine((s, ctx) => {
    // Both bounds are inclusive, so a one-day period has from == to. YYYY-MM-DD compares as text.
    // Only two real days are compared: a malformed bound is reported once, by its own field.
    const bothDays = isCalendarDay(s.bill_period_from_date) && isCalendarDay(s.bill_period_to_date);
    if (bothDays && s.bill_period_to_date < s.bill_period_from_date) {
      ctx.addIssue({
        code: 'custom',
        path: ['bill_period_to_date'],
        message: 'bill_period_to_date must not be before bill_period_from_date.',
        params: { code: 'start_date_later_than_end_date' },
      });
    }
  });

export function statementsRequestSchema(maxItems: number) {
  return z
    .object({ ...AccountReference, dry_run: DryRun, statements: z.array(HistoricalStatement).max(maxItems) })
    .superRefine((request, ctx) => {
      const seen = new Set<string>();
      request.statements.forEach((s, i) => {
        if (seen.has(s.statement_id)) {
          ctx.addIssue({
            code: 'custom',
            path: ['statements', i, 'statement_id'],
            message: `statement_id "${s.statement_id}" appears more than once in this request.`,
            params: { code: 'duplicate_statement_ids' },
          });
        }
        seen.add(s.statement_id);
      });
    });
}

export type HistoricalStatementInput = z.output<typeof HistoricalStatement>;
export type StatementsRequest = z.output<ReturnType<typeof statementsRequestSchema>>;

/** The 201: the validated request without `dry_run` (a dry run answers what the real call would). */
export function statementsAnswerSchema(maxItems: number) {
  return z.object({ ...AccountReference, statements: z.array(HistoricalStatement).max(maxItems) });
}
export type StatementsAnswer = Omit<StatementsRequest, 'dry_run'>;
