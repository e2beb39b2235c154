// Parsing the data-import endpoints' JSON bodies, and the two refusals that must come before anything
// reads them (shared/platform/json-body-scan.ts): numbers JSON.parse changed (`1e-400` read as 0), and
// values nested past any schema (schemas, echoes and JSON.stringify recurse: a few thousand levels
// overflow their stack, and Express once answered its own HTML page).
import express, { type Request, type RequestHandler } from 'express';
import { ValidationError } from '../shared/platform/errors';
import { findUnreadableJson, jsonPathAt, type UnreadableJson } from '../shared/platform/json-body-scan';
import { attrOf, MAX_JSON_DEPTH, tooDeepError } from '../shared/platform/validation';

/** What the scan found while the body was read, with the body's text to name the place by. */
const unreadable = new WeakMap<Request, { text: string; found: UnreadableJson }>();

/** express.json, then the refusals. `__proto__` keys stay data (JSON.parse never assigns prototypes). */
export function parseJsonBody(limit: number): RequestHandler[] {
  const parse = express.json({
    limit,
    strict: false,
    verify(req, _res, buf) {
      const found = findUnreadableJson(buf, MAX_JSON_DEPTH);
      // Read as latin1 only to name the place: offsets stay byte offsets, keys are decoded there.
      if (found) unreadable.set(req as Request, { text: buf.toString('latin1'), found });
    },
  });
  return [parse, refuseUnreadableBodies()];
}

function refuseUnreadableBodies(): RequestHandler {
  return (req, _res, next) => {
    const entry = unreadable.get(req);
    if (!entry) return next();
    unreadable.delete(req);
    const { text, found } = entry;
    const attr = attrOf(jsonPathAt(text, found.offset));
    if (found.problem === 'too_deep') {
      const error = tooDeepError(attr);
      throw new ValidationError([error], `${attr}: ${error.detail}`, error.code);
    }
    const shown = found.text.length > 40 ? `${found.text.slice(0, 40)}…` : found.text;
    const detail = `The JSON number ${shown} does not keep its value when read (a JSON number is a double): send it as a decimal string.`;
    throw ValidationError.single(attr, 'imprecise_number', detail);
  };
}
