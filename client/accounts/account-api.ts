// The two requests of an account's creation, under the client's retry policy: the v2 schedule
// (`POST /v2/data-import/accounts/`, one account per request, its own Idempotency-Key) and the v2 status
// (`GET /v2/data-import/accounts/<supplier>/<external>/`). Each answer becomes what the run does next:
// follow the account, record it as final, or leave it for resume.
import { withRetries, retryAfterMs, type Attempt, type RetryPolicy } from '../http/retry-policy';
import { readJson, type Fetcher } from '../http/service-fetch';
import type { AccountRef } from '../input-reader';
import { textOf } from '../item-kinds';

export interface AccountApi extends RetryPolicy {
  baseUrl: string;
  runId: string;
  fetcher: Fetcher;
}

export interface ScheduleOptions {
  dry_run?: boolean;
  schedule_window_start?: string;
  schedule_window_end?: string;
}

/** A final outcome: created (or already there), or refused with the service's reason. */
export type AccountFinal =
  | { ok: true; status: string; platform_account_number?: string }
  | {
      ok: false;
      status: string;
      code: string;
      attr: string;
      detail: string;
      domain?: string;
      errors?: { attr: string; code: string; detail: string }[];
    };

export type ScheduleAnswer =
  | { type: 'scheduled'; windowStart?: string; requestId?: string }
  | { type: 'final'; outcome: AccountFinal }
  | { type: 'unfinished'; reason: string };

export type StatusAnswer =
  | { type: 'waiting'; status: string }
  | { type: 'final'; outcome: AccountFinal }
  | { type: 'unfinished'; reason: string };

/** An account is a few KiB; an error body names at most every field of one. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const MAX_ERRORS = 200;

type Json = Record<string, unknown>;
const objectOf = (v: unknown): Json => (typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {});

export async function scheduleAccount(
  api: AccountApi,
  item: Json,
  options: ScheduleOptions,
  key: string,
): Promise<ScheduleAnswer> {
  const task_params: Json = {};
  if (options.dry_run) task_params.is_dry_run = true;
  if (options.schedule_window_start) task_params.schedule_window_start = options.schedule_window_start;
  if (options.schedule_window_end) task_params.schedule_window_end = options.schedule_window_end;
  const body = JSON.stringify({ payload: item, task_params });
  type Decided = Exclude<ScheduleAnswer, { type: 'unfinished' }>;
  const result = await withRetries(api, async (token, signal): Promise<Attempt<Decided>> => {
    const res = await api.fetcher(`${api.baseUrl}/v2/data-import/accounts/`, {
      method: 'POST',
      headers: headers(api, token, { 'content-type': 'application/json', 'idempotency-key': key }),
      body,
      signal,
    });
    const answer = objectOf(await readJson(res, MAX_ANSWER_BYTES));
    if (res.status === 201 || res.status === 200) {
      // A 2xx that does not name the account proves nothing: tried again like a 503.
      if (typeof answer.external_identifier !== 'string') return { type: 'retry', reason: `${res.status} unreadable` };
      const start = answer.schedule_window_start;
      const requestId = typeof answer.request_id === 'string' ? answer.request_id.slice(0, 64) : undefined;
      const scheduled = { type: 'scheduled' as const, windowStart: typeof start === 'string' ? start : undefined };
      return { type: 'done', value: requestId ? { ...scheduled, requestId } : scheduled };
    }
    return refusalOrRetry(res, answer, 'SCHEDULE_REFUSED');
  });
  return result.type === 'done' ? result.value : result;
}

const FINAL_OK = new Set(['PROCESSED', 'DRY_RUN_SUCCEEDED']);
const FINAL_FAILED = new Set(['ERRORED', 'DRY_RUN_ERRORED', 'CANCELLED']);

export async function accountStatus(api: AccountApi, account: AccountRef): Promise<StatusAnswer> {
  const url =
    `${api.baseUrl}/v2/data-import/accounts/` +
    `${encodeURIComponent(account.import_supplier)}/${encodeURIComponent(account.external_account_number)}/`;
  type Decided = Exclude<StatusAnswer, { type: 'unfinished' }>;
  const result = await withRetries(api, async (token, signal): Promise<Attempt<Decided>> => {
    const res = await api.fetcher(url, { headers: headers(api, token, {}), signal });
    const answer = objectOf(await readJson(res, MAX_ANSWER_BYTES));
    if (res.status !== 200) return refusalOrRetry(res, answer, 'STATUS_REFUSED');
    const status = textOf(answer.status, '').slice(0, 40);
    if (FINAL_OK.has(status)) {
      const platform = answer.platform_identifier;
      if (status === 'PROCESSED' && typeof platform !== 'string') return { type: 'retry', reason: 'no account number' };
      const number = typeof platform === 'string' ? { platform_account_number: platform.slice(0, 128) } : {};
      return { type: 'done', value: { type: 'final', outcome: { ok: true, status, ...number } } };
    }
    if (FINAL_FAILED.has(status)) {
      const error = objectOf(answer.latest_error);
      return {
        type: 'done',
        value: {
          type: 'final',
          outcome: {
            ok: false,
            status,
            code: textOf(error.code, status.toLowerCase()).slice(0, 200),
            attr: textOf(error.attr, 'non_field_errors').slice(0, 500),
            detail: textOf(error.detail, '').slice(0, 2000),
            ...(error.domain === undefined ? {} : { domain: textOf(error.domain, '').slice(0, 200) }),
          },
        },
      };
    }
    if (status === 'PENDING' || status === 'IN_PROGRESS') return { type: 'done', value: { type: 'waiting', status } };
    return { type: 'retry', reason: `unknown status ${JSON.stringify(status)}` };
  });
  return result.type === 'done' ? result.value : result;
}

/**
 * A dry run touches no process: its outcome is its request's answer (`GET requests/<id>/`), 201 when
 * the account would be created, a refusal with every field error otherwise, 503 while it waits.
 */
export async function dryRunOutcome(api: AccountApi, requestId: string): Promise<StatusAnswer> {
  const url = `${api.baseUrl}/v1/data-import/requests/${encodeURIComponent(requestId)}/`;
  type Decided = Exclude<StatusAnswer, { type: 'unfinished' }>;
  const result = await withRetries(api, async (token, signal): Promise<Attempt<Decided>> => {
    const res = await api.fetcher(url, { headers: headers(api, token, {}), signal });
    const answer = objectOf(await readJson(res, MAX_ANSWER_BYTES));
    if (res.status === 201)
      return { type: 'done', value: { type: 'final', outcome: { ok: true, status: 'DRY_RUN_SUCCEEDED' } } };
    if (res.status === 503 && answer.code === 'result_pending')
      return { type: 'done', value: { type: 'waiting', status: 'PENDING' } };
    return refusalOrRetry(res, answer, 'DRY_RUN_ERRORED');
  });
  return result.type === 'done' ? result.value : result;
}

function headers(api: AccountApi, token: string, more: Record<string, string>): Record<string, string> {
  return { authorization: `Token ${token}`, 'data-import-run-id': api.runId, ...more };
}

/**
 * 401 renews the token, 429 and 5xx retry; an account already created is a success that added
 * nothing (with its number); any other answer is the account's final failure, every field error kept.
 */
function refusalOrRetry(
  res: Response,
  answer: Json,
  status: string,
): Attempt<{ type: 'final'; outcome: AccountFinal }> {
  const code = textOf(answer.code, '').slice(0, 200);
  if (res.status === 401) return { type: 'reauth', reason: code || 'not_authenticated' };
  if (res.status === 429 || res.status >= 500)
    return {
      type: 'retry',
      reason: `${res.status} ${code}`.trim(),
      retryAfterMs: retryAfterMs(res.headers.get('retry-after')),
    };
  if (code === 'account_import_process_already_imported') {
    const platform = textOf(answer.platform_account_number, '').slice(0, 128);
    const outcome: AccountFinal = {
      ok: true,
      status: 'ACCOUNT_ALREADY_EXISTS',
      ...(platform ? { platform_account_number: platform } : {}),
    };
    return { type: 'done', value: { type: 'final', outcome } };
  }
  const errors = (Array.isArray(answer.errors) ? answer.errors.slice(0, MAX_ERRORS) : []).map((e) => {
    const o = objectOf(e);
    return {
      attr: textOf(o.attr, 'non_field_errors').slice(0, 500),
      code: textOf(o.code, '').slice(0, 200),
      detail: textOf(o.detail, '').slice(0, 2000),
    };
  });
  const first = errors[0];
  const outcome: AccountFinal = {
    ok: false,
    status,
    code: first?.code || code || `http_${res.status}`,
    attr: first?.attr ?? 'non_field_errors',
    detail: textOf(answer.detail, first?.detail ?? `HTTP ${res.status}`).slice(0, 2000),
    ...(errors.length > 0 ? { errors } : {}),
  };
  return { type: 'done', value: { type: 'final', outcome } };
}
