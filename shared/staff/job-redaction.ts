// What the queue dashboard may show of a job's data and return value. Jobs carry the validated
// request: note text, payment references, free-text descriptions. Operators need the shape (ids,
// counts, statuses, types, dates, amounts) to diagnose a job, not the customer's text. So a string is
// shown only under a key known to be harmless, and a key that names a secret hides whatever it holds.
export const REDACTED = '[redacted]';

const SECRET_KEY = /token|secret|passw|credential|authori[sz]ation|cookie|session|key|signature|private/i;
const SHOWN_STRING_KEY = new RegExp(
  [
    '^id$', '_id$', '[a-z]Id$', '^status$', '_status$', '^state$', '^outcome$', '^type$', '_type$', '^code$', '_code$',
    '^reason$', '^vendor$', '_supplier$', '_account_number$', '_date$', '_at$', '^rate_band$', 'amount$',
    '^price_per_unit$', '^number_of_units$', '^value_taxed$', '^rate$',
  ].join('|'),
);

export function redactJobValue(value: unknown, key = ''): unknown {
  if (value === null || value === undefined) return value;
  if (SECRET_KEY.test(key)) return REDACTED;
  // Array items are judged by the array's key: strings listed under `notes` stay hidden.
  if (Array.isArray(value)) return value.map((item) => redactJobValue(item, key));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactJobValue(v, k)]));
  }
  if (typeof value === 'string') return SHOWN_STRING_KEY.test(key) ? value : REDACTED;
  return value;
}
