// zod → the spec's validation error body. Field error codes follow Django REST framework's, which the
// migration teams' clients already know: required, null, blank, invalid, invalid_choice, max_length…
// Custom refinements carry their own code in `params.code`.
import { z } from 'zod';
import { ValidationError, type FieldError } from './errors';

export function issueToFieldError(issue: z.core.$ZodIssue): FieldError {
  const attr = issue.path.map(String).join('.') || 'non_field_errors';
  const input = (issue as { input?: unknown }).input;
  // However a field is typed (union, enum, literal), a missing or null one reads the same way.
  if (input === undefined && (issue.code === 'invalid_union' || issue.code === 'invalid_type' || issue.code === 'invalid_value')) {
    return { attr, code: 'required', detail: 'This field is required.' };
  }
  if (input === null && (issue.code === 'invalid_union' || issue.code === 'invalid_type' || issue.code === 'invalid_value')) {
    return { attr, code: 'null', detail: 'This field may not be null.' };
  }
  switch (issue.code) {
    case 'invalid_type':
      return { attr, code: 'invalid', detail: `Expected ${issue.expected}.` };
    case 'too_small':
      if (issue.origin === 'string') {
        return input === ''
          ? { attr, code: 'blank', detail: 'This field may not be blank.' }
          : { attr, code: 'min_length', detail: `Ensure this field has at least ${String(issue.minimum)} characters.` };
      }
      if (issue.origin === 'array') {
        return { attr, code: 'min_length', detail: `Ensure this list has at least ${String(issue.minimum)} items.` };
      }
      return { attr, code: 'min_value', detail: `Ensure this value is at least ${String(issue.minimum)}.` };
    case 'too_big':
      if (issue.origin === 'string') {
        return { attr, code: 'max_length', detail: `Ensure this field has no more than ${String(issue.maximum)} characters.` };
      }
      if (issue.origin === 'array') {
        return { attr, code: 'max_length', detail: `Ensure this list has no more than ${String(issue.maximum)} items.` };
      }
      return { attr, code: 'max_value', detail: `Ensure this value is at most ${String(issue.maximum)}.` };
    case 'invalid_value':
      return {
        attr,
        code: 'invalid_choice',
        detail: `"${String(input)}" is not a valid choice. Valid choices: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}.`,
      };
    case 'custom': {
      const code = (issue.params as { code?: string } | undefined)?.code ?? 'invalid';
      return { attr, code, detail: issue.message };
    }
    default:
      return { attr, code: 'invalid', detail: issue.message };
  }
}

/** Parses `input` with `schema` or throws a ValidationError listing every failing field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const errors = result.error.issues.map(issueToFieldError);
  const first = errors[0];
  throw new ValidationError(errors, first ? `${first.attr}: ${first.detail}` : 'Invalid input.');
}
