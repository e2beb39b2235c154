// zod → the spec's validation error body. Field error codes follow Django REST framework's, which the
// migration teams' clients already know: required, null, blank, invalid, invalid_choice, max_length…
// Custom refinements carry their own code in `params.code`.
import { z } from 'zod';
import { ValidationError, type FieldError } from './errors';

export function issueToFieldError(issue: z.core.$ZodIssue): FieldError {
  const attr = issue.path.map(String).join('.') || 'non_field_errors';
  const input = (issue as { input?: unknown }).input;
  // However a field is typed (union, enum, literal), a missing or null one reads the same way.
  if (
    input === undefined &&
    (issue.code === 'invalid_union' || issue.code === 'invalid_type' || issue.code === 'invalid_value')
  ) {
    return { attr, code: 'required', detail: 'This field is required.' };
  }
  if (
    input === null &&
    (issue.code === 'invalid_union' || issue.code === 'invalid_type' || issue.code === 'invalid_value')
  ) {
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
        return {
          attr,
          code: 'max_length',
          detail: `Ensure this field has no more than ${String(issue.maximum)} characters.`,
        };
      }
      if (issue.origin === 'array') {
        return {
          attr,
          code: 'max_length',
          detail: `Ensure this list has no more than ${String(issue.maximum)} items.`,
        };
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
  if (result.success) {
    // After the schema, so a field's own rule (a document path's, say) names the problem first.
    const problem = findUnstorableJson(input);
    if (problem) throw new ValidationError([problem], `${problem.attr}: ${problem.detail}`, problem.code);
    return result.data;
  }
  const errors = result.error.issues.map(issueToFieldError);
  const first = errors[0];
  throw new ValidationError(errors, first ? `${first.attr}: ${first.detail}` : 'Invalid input.');
}

/** Deeper than any payload the schemas describe (a line item's units sit at depth 6). */
export const MAX_JSON_DEPTH = 64;

/** The error for a value nested past MAX_JSON_DEPTH at `attr`. */
export function tooDeepError(attr: string): FieldError {
  return { attr, code: 'max_depth', detail: `Values may not be nested more than ${MAX_JSON_DEPTH} levels deep.` };
}

// String.prototype.isWellFormed (Node 20; typed from ES2024, past this project's ES2023 lib): native, and
// far cheaper than a look-around pattern over every string of a body.
const isWellFormed = (s: string) => (s as string & { isWellFormed(): boolean }).isWellFormed();

function textProblem(s: string): Pick<FieldError, 'code' | 'detail'> | undefined {
  // PostgreSQL text and jsonb cannot hold NUL: inserting one fails the whole statement.
  if (s.includes('\u0000')) return { code: 'null_characters_not_allowed', detail: 'Null characters are not allowed.' };
  // A lone surrogate is not Unicode text: the UTF-8 encoding would silently turn it into U+FFFD.
  if (!isWellFormed(s))
    return { code: 'surrogate_characters_not_allowed', detail: 'Lone surrogate characters are not allowed.' };
  return undefined;
}

/** False for text no row can hold (NUL, lone surrogates): a lookup by it can only find nothing. */
export function isStorableText(s: string): boolean {
  return textProblem(s) === undefined;
}

/** `attr` for a path: cut before the first key a dot-delimited path cannot spell (empty, or with a dot). */
export function attrOf(path: (string | number)[]): string {
  const cut = path.findIndex((k) => typeof k === 'string' && (k === '' || k.includes('.')));
  return (cut === -1 ? path : path.slice(0, cut)).join('.') || 'non_field_errors';
}

/** A value met while walking a body: its key and parent, so a path is spelled only for a problem. */
interface Visit {
  value: unknown;
  key: string | number | undefined;
  parent: Visit | undefined;
  depth: number;
}

function pathOf(visit: Visit | undefined, key?: string): (string | number)[] {
  const path: (string | number)[] = key === undefined ? [] : [key];
  for (let v = visit; v?.key !== undefined; v = v.parent) path.push(v.key);
  return path.reverse();
}

/**
 * The first place in a parsed JSON body that could not be stored exactly as sent (a string or key
 * with NUL or a lone surrogate), or that nests deeper than MAX_JSON_DEPTH. Iterative: a body of a
 * million nested arrays must not exhaust the stack here (or in JSON.stringify further on).
 */
export function findUnstorableJson(body: unknown): FieldError | undefined {
  const stack: Visit[] = [{ value: body, key: undefined, parent: undefined, depth: 0 }];
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (typeof value === 'string') {
      const problem = textProblem(value);
      if (problem) return { attr: attrOf(pathOf(visit)), ...problem };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return tooDeepError(attrOf(pathOf(visit)));
    // Children are pushed last to first, so the first offending value in document order is the one
    // reported; an object's keys are all checked before any of its values.
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--)
        stack.push({ value: value[i] as unknown, key: i, parent: visit, depth: depth + 1 });
      continue;
    }
    const keys = Object.keys(value);
    for (const key of keys) {
      const problem = textProblem(key);
      if (problem) return { attr: attrOf(pathOf(visit, key)), ...problem };
    }
    for (let i = keys.length - 1; i >= 0; i--)
      stack.push({
        value: (value as Record<string, unknown>)[keys[i]!],
        key: keys[i]!,
        parent: visit,
        depth: depth + 1,
      });
  }
  return undefined;
}
