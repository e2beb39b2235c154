// Starts the app (staff pages included) with a controllable clock, and a small cookie-keeping HTTP
// client for staff sessions.
import type { Server } from 'node:http';
import { createApp } from '../../api/server';
import { createJobQueues, type JobQueues } from '../../shared/platform/queues';
import { createMetrics } from '../../shared/platform/metrics';
import { createRedis, untilReady, type RedisClient } from '../../shared/platform/redis';
import { createQueuedRequests } from '../../shared/requests/queued-request';
import { createStaffUser } from '../../shared/staff/staff.use-cases';
import type { StaffRoleName } from '../../shared/staff/staff.schemas';
import type { TestApp } from '../helpers/app';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';
import { QUEUED_REQUEST_JOBS, REQUEST_QUEUES } from '../../shared/catalog/jobs';

export interface StaffTestApp extends TestDb {
  baseUrl: string;
  redis: RedisClient;
  queues: JobQueues;
  clock: { advance(ms: number): void };
  /** For helpers that take the API test app (createTenant uses only db and baseUrl). */
  asTestApp(): TestApp;
  close(): Promise<void>;
}

export async function startStaffApp(staffSettings: Record<string, string | number> = {}): Promise<StaffTestApp> {
  // Through loadConfig, as the environment would give them.
  const t = await openTestDb(Object.fromEntries(Object.entries(staffSettings).map(([k, v]) => [k, String(v)])));
  const config = t.config;
  const redis = createRedis(config, 'producer');
  await untilReady(redis);
  const queues = createJobQueues(config, REQUEST_QUEUES);
  const queued = createQueuedRequests({
    db: t.db,
    queues,
    jobs: QUEUED_REQUEST_JOBS,
    waitMs: config.RESULT_WAIT_MS,
    direct: config.DIRECT_COMMIT === 'on',
  });
  let offsetMs = 0;
  const now = () => new Date(Date.now() + offsetMs);
  const deps = { ...t, config, redis, queues, queued, metrics: createMetrics(), now };
  const outer = createApp(deps);
  const server = await new Promise<Server>((resolve) => {
    const s = outer.listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as { port: number }).port;
  const app: StaffTestApp = {
    ...t,
    config,
    baseUrl: `http://127.0.0.1:${port}`,
    redis,
    queues,
    clock: { advance: (ms) => (offsetMs += ms) },
    asTestApp: () => ({ ...app, api: undefined as never, workers: undefined }),
    async close() {
      await new Promise<void>((resolve, reject) => {
        server.close((err) => (err ? reject(err) : resolve()));
        server.closeAllConnections();
      });
      queued.close();
      await queues.close();
      redis.disconnect();
      await t.db.close();
    },
  };
  return app;
}

export async function createStaff(app: TestDb, role: StaffRoleName, password = `pw-${uniqueSuffix()}-long-enough`) {
  const username = `${role}-${uniqueSuffix().toLowerCase()}`;
  await createStaffUser(app.db, { username, role, password });
  return { username, password };
}

export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** A browser stand-in: keeps cookies, follows nothing, and finds the page's CSRF token. */
export class StaffClient {
  readonly cookies = new Map<string, string>();
  constructor(readonly baseUrl: string) {}

  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async send(
    method: string,
    path: string,
    opts: { form?: Record<string, string>; json?: unknown; headers?: Record<string, string> } = {},
  ): Promise<Reply> {
    const headers: Record<string, string> = { accept: 'text/html', ...opts.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    let body: string | undefined;
    if (opts.form) {
      body = new URLSearchParams(opts.form).toString();
      headers['content-type'] = 'application/x-www-form-urlencoded';
    } else if (opts.json !== undefined) {
      body = JSON.stringify(opts.json);
      headers['content-type'] = 'application/json';
    }
    const res = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) {
      const [pair, ...attributes] = line.split(';');
      const [name, ...value] = pair!.split('=');
      const expired = attributes.some((a) => /^\s*expires=Thu, 01 Jan 1970/i.test(a));
      if (expired) this.cookies.delete(name!.trim());
      else this.cookies.set(name!.trim(), value.join('='));
    }
    return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get('location') };
  }

  get(path: string, headers?: Record<string, string>) {
    return this.send('GET', path, { headers });
  }

  /** The `_csrf` value of the last form on `path`. */
  async csrfFrom(path: string): Promise<string> {
    const page = await this.get(path);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    if (!token) throw new Error(`no CSRF token on ${path} (status ${page.status})`);
    return token;
  }

  async login(
    username: string,
    password: string,
    extra: Record<string, string> = {},
    headers?: Record<string, string>,
  ): Promise<Reply> {
    const _csrf = await this.csrfFrom('/login');
    return this.send('POST', '/login', { form: { _csrf, username, password, ...extra }, headers });
  }
}

export async function signedIn(app: StaffTestApp, role: StaffRoleName) {
  const user = await createStaff(app, role);
  const client = new StaffClient(app.baseUrl);
  const res = await client.login(user.username, user.password);
  if (res.status !== 303) throw new Error(`sign-in failed with ${res.status}`);
  return { client, ...user };
}
