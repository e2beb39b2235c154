// Turns one HTTP answer into what happens to each item of the batch. The rules (spec
// "Errors"): 429, 5xx and 503 are retried as they are; a 401 means a new token; a 400 naming items in
// errors[].attr fails those items and sends the rest again; a 400 naming none fails the whole batch;
// *_already_exists is a success that added nothing; any other 4xx fails the batch as it is. A 2xx
// that does not hold one result per item is retried like a 503: nothing proves the items were stored.
// A 3xx never gets here (http/service-fetch.ts refuses redirects).
import { retryAfterMs } from './http/retry-policy';
import { differsFromStored, isAlreadyExisting, KIND_SPECS, resultsOf, textOf, type Kind } from './item-kinds';

export type ItemOutcome =
  { ok: true; status: string; id?: string; differs?: true } | { ok: false; code: string; attr: string; detail: string };

export type Verdict =
  | { type: 'final'; outcomes: ItemOutcome[] }
  /** Some items have their outcome; the others (indexes) go again as a new request. */
  | { type: 'split'; outcomes: Map<number, ItemOutcome>; rest: number[] }
  | { type: 'retry'; retryAfterMs?: number; reason: string }
  | { type: 'reauth'; reason: string };

interface FieldError {
  attr?: unknown;
  code?: unknown;
  detail?: unknown;
}

interface ErrorBody {
  code?: unknown;
  detail?: unknown;
  error_detail?: unknown;
  errors?: FieldError[];
}

export function classifyAnswer(
  kind: Kind,
  status: number,
  body: unknown,
  retryAfter: string | null,
  items: Record<string, unknown>[],
): Verdict {
  if (status >= 200 && status < 300) {
    const results = resultsOf(kind, body, items);
    if (!results) return { type: 'retry', reason: `${status} without one result per item` };
    return { type: 'final', outcomes: results.map((s) => ({ ok: true, ...s })) };
  }
  const error = (typeof body === 'object' && body !== null ? body : {}) as ErrorBody;
  if (status === 401) return { type: 'reauth', reason: textOf(error.code, 'not_authenticated') };
  if (status === 429 || status >= 500) {
    return {
      type: 'retry',
      retryAfterMs: retryAfterMs(retryAfter),
      reason: `${status} ${textOf(error.code, '')}`.trim(),
    };
  }
  if (status === 400) return classifyBadRequest(kind, error, items.length);
  return wholeBatch(items.length, failure(error, status));
}

function classifyBadRequest(kind: Kind, error: ErrorBody, count: number): Verdict {
  const errors = Array.isArray(error.errors) ? error.errors.slice(0, 10_000) : [];
  const listField = KIND_SPECS[kind].listField;
  if (!listField) {
    const first = errors[0] ?? {};
    const code = textOf(first.code, textOf(error.code, 'invalid_input'));
    if (isAlreadyExisting(code)) return { type: 'final', outcomes: [existing(code, first)] };
    return { type: 'final', outcomes: [fieldFailure(first, textOf(first.attr, 'non_field_errors'), error)] };
  }
  const byItem = new Map<number, { rest: string; error: FieldError }[]>();
  const itemAttr = new RegExp(`^${listField}\\.(\\d{1,9})(?:\\.(.+))?$`);
  for (const e of errors) {
    const m = itemAttr.exec(textOf(e.attr, ''));
    const index = m ? Number(m[1]) : NaN;
    if (!(index < count)) continue;
    byItem.set(index, [...(byItem.get(index) ?? []), { rest: m?.[2] ?? 'non_field_errors', error: e }]);
  }
  if (byItem.size === 0) return wholeBatch(count, failure(error, 400));
  const outcomes = new Map<number, ItemOutcome>();
  for (const [index, found] of byItem) {
    const blocking = found.find((f) => !isAlreadyExisting(textOf(f.error.code, '')));
    outcomes.set(
      index,
      blocking
        ? fieldFailure(blocking.error, blocking.rest, error)
        : existing(String(found[0]!.error.code), found[0]!.error),
    );
  }
  const rest = Array.from({ length: count }, (_, i) => i).filter((i) => !outcomes.has(i));
  return rest.length === 0
    ? { type: 'final', outcomes: [...outcomes.entries()].sort((a, b) => a[0] - b[0]).map(([, o]) => o) }
    : { type: 'split', outcomes, rest };
}

/** An item the service already had; its error entry may say it holds something else. */
function existing(code: string, e: FieldError): ItemOutcome {
  return { ok: true, status: code.toUpperCase(), ...(differsFromStored(e) ? { differs: true } : {}) };
}

function fieldFailure(e: FieldError, attr: string, envelope: ErrorBody): ItemOutcome {
  return bounded({
    code: textOf(e.code, textOf(envelope.code, 'invalid_input')),
    attr,
    detail: textOf(e.detail, textOf(envelope.detail, textOf(envelope.error_detail, ''))),
  });
}

function failure(error: ErrorBody, status: number): ItemOutcome {
  const first = Array.isArray(error.errors) ? error.errors[0] : undefined;
  return bounded({
    code: textOf(error.code, textOf(first?.code, `http_${status}`)),
    attr: textOf(first?.attr, 'non_field_errors'),
    detail: textOf(error.detail, textOf(error.error_detail, textOf(first?.detail, `HTTP ${status}`))),
  });
}

/** The service's own texts are short; a failure record keeps at most this much of a longer one. */
const bounded = (f: { code: string; attr: string; detail: string }): ItemOutcome => ({
  ok: false,
  code: f.code.slice(0, 200),
  attr: f.attr.slice(0, 500),
  detail: f.detail.slice(0, 2000),
});

const wholeBatch = (count: number, outcome: ItemOutcome): Verdict => ({
  type: 'final',
  outcomes: Array.from({ length: count }, () => outcome),
});
