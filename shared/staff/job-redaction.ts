// What the queue dashboard may show of a job's data and return value. Jobs carry the validated
// request: note text, payment references, free-text descriptions. Operators need the shape (ids,
// counts, statuses, types, dates, amounts) to diagnose a job, not the customer's text. So a string is
// shown only under a key known to be harmless, and a key that names a secret hides whatever it holds.
export const REDACTED = '[redacted]';

const SECRET_KEY = /token|secret|passw|credential|authori[sz]ation|cookie|session|key|signature|private/i;
const SHOWN_STRING_KEY = new RegExp(
  [
    '^id$',
    '_id$',
    '[a-z]Id$',
    '^status$',
    '_status$',
    '^state$',
    '^outcome$',
    '^type$',
    '_type$',
    '^code$',
    '_code$',
    '^reason$',
    '^vendor$',
    '_supplier$',
    '_account_number$',
    '_date$',
    '_at$',
    '^rate_band$',
    'amount$',
    '^price_per_unit$',
    '^number_of_units$',
    '^value_taxed$',
    '^rate$',
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

/**
 * What support staff's read-only board may show of the dashboard API's answers. A failed job's reason
 * and stack trace, its options and its log lines can quote the input or the internals, and Redis INFO
 * describes the server: support staff need to see that a job failed, and when, not why in words.
 * The shapes stay (the board's client reads them), the text goes.
 */
export function redactBoardAnswer(path: string, body: unknown): unknown {
  if (path === '/api/redis/stats') return hideStrings(body);
  if (/^\/api\/queues\/[^/]+\/[^/]+\/logs$/.test(path)) return hideStrings(body);
  return hideJobDiagnostics(body, 0);
}

const MAX_NESTING = 32;

function hideStrings(value: unknown): unknown {
  if (typeof value === 'string') return REDACTED;
  if (Array.isArray(value)) return value.map(hideStrings);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, hideStrings(v)]));
  }
  return value;
}

function hideJobDiagnostics(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || depth > MAX_NESTING) return value;
  if (Array.isArray(value)) return value.map((item) => hideJobDiagnostics(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => {
      if (k === 'failedReason') return [k, typeof v === 'string' && v !== '' ? REDACTED : v];
      if (k === 'stacktrace') return [k, Array.isArray(v) ? v.map(() => REDACTED) : v];
      if (k === 'opts') return [k, {}];
      return [k, hideJobDiagnostics(v, depth + 1)];
    }),
  );
}
