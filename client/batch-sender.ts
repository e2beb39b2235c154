// Sends one batch until it has an answer that decides its items, under the client's retry policy
// (http/retry-policy.ts): every retry carries the same Idempotency-Key, so a retry can never double a
// batch (the service replays the stored answer or runs a request that wrote nothing).
import { classifyAnswer, type Verdict } from './answer-classifier';
import { withRetries, type Attempt, type RetryPolicy } from './http/retry-policy';
import { readJson, type Fetcher } from './http/service-fetch';
import type { AccountRef } from './input-reader';
import { buildBody, buildQuery, KIND_SPECS, type Kind, type SendOptions } from './item-kinds';

export interface SenderDeps extends RetryPolicy {
  baseUrl: string;
  runId: string;
  fetcher: Fetcher;
  options: SendOptions;
}

/** A deciding answer, with the service's X-Request-Id for the failures it records. */
type Decided = Exclude<Verdict, { type: 'retry' } | { type: 'reauth' }> & { requestId?: string };
export type SendResult = Decided | { type: 'unfinished'; reason: string };

/**
 * An answer echoes at most 1,000 items of a 5 MiB body, so it is a few MiB; a longer one is read as no
 * answer at all (a 2xx of it then retries rather than counting anything as stored).
 */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

export async function sendBatch(
  deps: SenderDeps,
  kind: Kind,
  account: AccountRef,
  items: Record<string, unknown>[],
  key: string,
): Promise<SendResult> {
  const url = deps.baseUrl + KIND_SPECS[kind].path + buildQuery(kind, deps.options);
  const body = JSON.stringify(buildBody(kind, account, items, deps.options));
  const result = await withRetries(deps, async (token, signal): Promise<Attempt<Decided>> => {
    const res = await deps.fetcher(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Token ${token}`,
        'idempotency-key': key,
        'data-import-run-id': deps.runId,
      },
      body,
      signal,
    });
    const answer = await readJson(res, MAX_ANSWER_BYTES);
    const verdict = classifyAnswer(kind, res.status, answer, res.headers.get('retry-after'), items);
    if (verdict.type === 'retry' || verdict.type === 'reauth') return verdict;
    const requestId = res.headers.get('x-request-id')?.slice(0, 100);
    return { type: 'done', value: requestId ? { ...verdict, requestId } : verdict };
  });
  return result.type === 'done' ? result.value : result;
}
