// Starts the real API in-process on port 0 and speaks HTTP to it.
import type { AppDeps } from '../../api/app-deps';
import { startApi, type RunningApi } from '../../api/server';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { applyFile, type ApplyReport } from '../../shared/admin/apply.use-case';
import type { ApplyFileInput } from '../../shared/admin/apply.schemas';
import type { Config } from '../../shared/platform/config';
import { openTestDb, uniqueSuffix, type TestDb } from './context';
import { until } from './until';

export interface TestApp extends TestDb {
  api: RunningApi;
  workers?: RunningWorkers;
  baseUrl: string;
  close(): Promise<void>;
}

/**
 * Starts the API (and, with `workers: true`, the BullMQ workers on the same queue prefix) against
 * this worker's test database.
 */
export async function startTestApp(
  overrides: Partial<Record<keyof Config, string>> = {},
  extra: Partial<Omit<AppDeps, 'queued'>> & { workers?: boolean } = {},
): Promise<TestApp> {
  const t = await openTestDb(overrides);
  const { workers: withWorkers, ...deps } = extra;
  const workers = withWorkers ? await startWorkers({ ...t, logger: deps.logger ?? t.logger }) : undefined;
  const api = await startApi({ ...t, ...deps });
  return {
    ...t,
    api,
    workers,
    baseUrl: `http://127.0.0.1:${api.port}`,
    async close() {
      await api.stop();
      await workers?.stop();
      await t.db.close();
    },
  };
}

export interface Json {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  headers: Headers;
}

export async function request(
  baseUrl: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; headers?: Record<string, string>; rawBody?: string } = {},
): Promise<Json> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization ??= `Token ${opts.token}`;
  let body: string | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

/**
 * A queued write's final answer: the answer itself, or, for a 503 result_pending (the work outlasted the
 * request's wait, as it may on a busy machine), what its Location comes to serve.
 */
export async function settled(baseUrl: string, token: string, answer: Json): Promise<Json> {
  if (answer.status !== 503 || (answer.body as { code?: string } | undefined)?.code !== 'result_pending') return answer;
  const location = answer.headers.get('location')!;
  return until(
    `${location} to be answered`,
    async () => {
      const polled = await request(baseUrl, 'GET', location, { token });
      return polled.status === 503 ? undefined : polled;
    },
    60_000,
  );
}

export async function obtainToken(baseUrl: string, input: { APIKey?: string; refreshToken?: string }): Promise<Json> {
  return request(baseUrl, 'POST', '/v1/graphql/', {
    body: {
      query: `mutation($input: ObtainTokenInput!) {
        obtainToken(input: $input) { token payload refreshToken refreshExpiresIn }
      }`,
      variables: { input },
    },
  });
}

export interface Tenant {
  supplier: string;
  apiKey: string;
  token: string;
  report: ApplyReport;
}

/**
 * The product of the contract's SUPPLY_CHARGE example (11.0 per unit of CONSUMPTION_STANDARD in
 * October 2019), so the example imports as published. Products are global: every tenant re-applies it.
 */
export const CONTRACT_PRODUCT = {
  code: 'SOME-PRODUCT-CODE-4321',
  rates: [{ rate_band: 'CONSUMPTION_STANDARD', price_per_unit: '11.0', valid_from: '2019-01-01' }],
};

/**
 * Creates a supplier and an organisation that may use it (unique names), applies `accounts` under
 * that supplier and the contract's example product, and signs in.
 */
export async function createTenant(
  app: TestApp,
  opts: {
    status?: 'Ongoing' | 'Paused' | 'Complete';
    documentRoot?: string;
    accounts?: Omit<NonNullable<ApplyFileInput['accounts']>[number], 'import_supplier'>[];
  } = {},
): Promise<Tenant> {
  const suffix = uniqueSuffix();
  const supplier = `SUPPLIER_${suffix}`;
  const apiKey = `test-key-${suffix}-${'x'.repeat(32)}`;
  const report = await applyFile(app.db, {
    suppliers: [
      { code: supplier, status: opts.status ?? 'Ongoing', document_root: opts.documentRoot ?? `imports/${suffix}` },
    ],
    organisations: [{ name: `org-${suffix}`, api_key: apiKey, suppliers: [supplier] }],
    products: [CONTRACT_PRODUCT],
    accounts: (opts.accounts ?? []).map((a) => ({ ...a, import_supplier: supplier })),
  });
  const res = await obtainToken(app.baseUrl, { APIKey: apiKey });
  const token = res.body?.data?.obtainToken?.token as string | undefined;
  if (!token) throw new Error(`sign-in failed: ${JSON.stringify(res.body)}`);
  return { supplier, apiKey, token, report };
}
