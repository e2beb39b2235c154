// Write endpoints take the query parameters they document and no others: an option a client believes
// it set (`?dry_run=true`) must not be dropped while the data is written. Express's simple query parser
// keeps `name[]` as a name of its own and gives a repeated name as a list: both are refused here.
import type { RequestHandler } from 'express';
import { ValidationError, type FieldError } from '../../shared/platform/errors';

/** Longest parameter name echoed as an `attr`: names are bounded only by the URL. */
const MAX_NAME = 100;

export function onlyQueryParameters(...allowed: string[]): RequestHandler {
  const known = new Set(allowed);
  const takes = allowed.length > 0 ? `This endpoint takes ${allowed.join(', ')}.` : 'This endpoint takes none.';
  return (req, _res, next) => {
    const errors: FieldError[] = [];
    // Bounded: the query parser keeps at most 1,000 parameters.
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      const attr = name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name;
      if (!known.has(name)) {
        errors.push({ attr, code: 'unknown_query_parameter', detail: `Unknown query parameter "${attr}". ${takes}` });
      } else if (typeof value !== 'string') {
        errors.push({ attr, code: 'invalid', detail: `The query parameter "${attr}" may be given once.` });
      }
    }
    if (errors.length > 0) throw new ValidationError(errors, `${errors[0]!.attr}: ${errors[0]!.detail}`);
    next();
  };
}
