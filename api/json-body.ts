// Parsing the data-import endpoints' JSON bodies, and the two refusals that must come before anything
// reads them: numbers JSON.parse changed (`1e-400` read as 0) and values nested past any schema (the
// schemas, the echoes and JSON.stringify recurse: a few thousand levels overflow their stack).
import express, { type Request, type RequestHandler } from 'express';
import { ValidationError } from '../shared/platform/errors';
import { findLossyNumber, jsonPathAt, type LossyNumber } from '../shared/platform/json-numbers';
import { attrOf, findTooDeep } from '../shared/platform/validation';

/** A lossy number found while the body was read, with the text to name its place by. */
const lossyNumbers = new WeakMap<Request, { text: string; number: LossyNumber }>();

/** express.json, then the refusals. `__proto__` keys stay data (JSON.parse never assigns prototypes). */
export function parseJsonBody(limit: number): RequestHandler[] {
  const parse = express.json({
    limit,
    strict: false,
    // The bytes as latin1: no UTF-8 decoding, and every character the number scan stops at is ASCII.
    verify(req, _res, buf) {
      const text = buf.toString('latin1');
      const number = findLossyNumber(text);
      if (number) lossyNumbers.set(req as Request, { text, number });
    },
  });
  return [parse, refuseUnreadableBodies()];
}

function refuseUnreadableBodies(): RequestHandler {
  return (req, _res, next) => {
    const lossy = lossyNumbers.get(req);
    if (lossy) {
      lossyNumbers.delete(req);
      const attr = attrOf(jsonPathAt(lossy.text, lossy.number.offset));
      const shown = lossy.number.text.length > 40 ? `${lossy.number.text.slice(0, 40)}…` : lossy.number.text;
      const detail = `The JSON number ${shown} does not keep its value when read (a JSON number is a double): send it as a decimal string.`;
      throw ValidationError.single(attr, 'imprecise_number', detail);
    }
    const deep = findTooDeep(req.body);
    if (deep) throw new ValidationError([deep], `${deep.attr}: ${deep.detail}`, deep.code);
    next();
  };
}
