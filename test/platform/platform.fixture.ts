// Shared by the Redis fail-over tests: a request followed to its final answer, as a client does it.
import { request, type Json, type Tenant, type TestApp } from '../helpers/app';
import { postTransactions } from '../transactions/transactions.fixture';

export interface Outcome {
  key: string;
  /** Every status seen, the first answer's, then each poll's or retry's, the final one last. */
  statuses: number[];
  final: Json;
}

/**
 * Posts one transactions request and follows it to its final answer: polls the Location of a 503
 * result_pending, and posts again with the same key after any other 503 (queue_unavailable). Bounded:
 * throws after `rounds` answers that are not final.
 */
export async function importToTheEnd(
  app: TestApp,
  tenant: Tenant,
  body: unknown,
  key: string,
  rounds = 200,
): Promise<Outcome> {
  const statuses: number[] = [];
  let res = await postTransactions(app, tenant.token, body, { idempotencyKey: key });
  for (let round = 0; round < rounds; round++) {
    statuses.push(res.status);
    if (res.status !== 503) return { key, statuses, final: res };
    const location = res.body?.code === 'result_pending' ? res.headers.get('location') : null;
    await new Promise((resolve) => setTimeout(resolve, 250));
    res = location
      ? await request(app.baseUrl, 'GET', location, { token: tenant.token })
      : await postTransactions(app, tenant.token, body, { idempotencyKey: key });
  }
  throw new Error(`request ${key} got no final answer: ${statuses.join(',')}`);
}
