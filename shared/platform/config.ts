// The service's whole configuration, parsed once from the environment at boot and passed down.
// Nothing else reads process.env. Every value has a default that works on a developer machine with
// PostgreSQL and Redis on localhost; outside development the signing secrets have none (see
// secret-policy.ts).
import { z } from 'zod';
import { PUBLISHED_SECRETS, secretProblem } from './secret-policy';
import { parseTrustProxy } from './trust-proxy';

const [DEV_TOKEN_SECRET, DEV_SESSION_SECRET] = PUBLISHED_SECRETS as [string, string];
const STRIPE_NOT_CONFIGURED = 'sk_test_not_configured';
// Where the development defaults of the secrets may be used; any other NODE_ENV (production, staging,
// a typo) is treated as a real deployment.
const DEVELOPMENT_ENVIRONMENTS = new Set(['development', 'test']);
const SIGNING_SECRETS = ['TOKEN_SECRET', 'SESSION_SECRET'] as const;

/**
 * The longest an access token may live. A revocation is remembered this long (it has then outlived
 * every token it could refuse: shared/auth/revocation.use-cases.ts), so the cap also bounds that list.
 * An hour is the lifetime clients already expect; revocation no longer waits for it.
 */
export const MAX_TOKEN_TTL_SECONDS = 3600;

const CLUSTER_NODE = /^([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\]):(\d{1,5})$/;

function clusterNodes(value: string, ctx: z.RefinementCtx): { host: string; port: number }[] {
  const parts = value.split(',', 65).map((p) => p.trim());
  const nodes = parts.map((p) => CLUSTER_NODE.exec(p)).filter((m) => m !== null);
  if (parts.length > 64 || nodes.length !== parts.length || nodes.some((m) => Number(m[2]) > 65535)) {
    ctx.addIssue({ code: 'custom', message: 'expected 1 to 64 comma-separated host:port seed nodes' });
    return [];
  }
  return nodes.map((m) => ({ host: m[1]!.replace(/^\[|\]$/g, ''), port: Number(m[2]) }));
}

export const ConfigSchema = z
  .object({
    NODE_ENV: z.string().max(64).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(8000),
    HOST: z.string().default('0.0.0.0'),
    // The staff pages (sign-in, queue dashboard, support) on a listener of their own, which a firewall
    // or proxy can keep off the internet; the main port then no longer serves them. 0 picks a free port.
    STAFF_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/data_import'),
    REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
    // Seed nodes (`host:port,host:port`) of a Redis Cluster; when set, every connection is a cluster
    // client and REDIS_URL is not used.
    REDIS_CLUSTER_NODES: z
      .string()
      .max(4096)
      .optional()
      .transform((value, ctx) => (value === undefined || value.trim() === '' ? undefined : clusterNodes(value, ctx))),
    // Credentials and TLS of every cluster node (a managed cluster's ACL user or AUTH token, in-transit
    // encryption). A single Redis takes them in REDIS_URL instead: rediss://user:password@host:port.
    REDIS_CLUSTER_USERNAME: z.string().min(1).max(256).optional(),
    REDIS_CLUSTER_PASSWORD: z.string().min(1).max(1024).optional(),
    REDIS_CLUSTER_TLS: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // The hash tag keeps every key of a queue in one Redis Cluster slot.
    QUEUE_PREFIX: z.string().min(1).default('{import}'),
    TOKEN_SECRET: z.string().min(32).default(DEV_TOKEN_SECRET),
    TOKEN_TTL_SECONDS: z.coerce.number().int().positive().max(MAX_TOKEN_TTL_SECONDS).default(3600),
    // Verified access tokens each API process remembers (0 turns the cache off), and for how long.
    TOKEN_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    TOKEN_CACHE_SECONDS: z.coerce.number().int().min(0).max(3600).default(60),
    // Accounts each API process remembers for writes (0 turns the cache off), and for how long: the
    // worker checks again what may change meanwhile (shared/accounts/writable-account-cache.ts).
    ACCOUNT_CACHE_SIZE: z.coerce.number().int().min(0).max(1_000_000).default(10_000),
    ACCOUNT_CACHE_MS: z.coerce.number().int().min(0).max(60_000).default(30_000),
    REFRESH_TOKEN_TTL_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(7 * 24 * 3600),
    DOCUMENT_BUCKET: z.string().min(1).default('production-files'),
    BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(5 * 1024 * 1024),
    MAX_ITEMS_PER_REQUEST: z.coerce.number().int().positive().default(1000),
    RESULT_WAIT_MS: z.coerce.number().int().positive().default(25_000),
    // on: the API commits a burst of queued writes whose kind allows it (transactions) itself, in the
    // group transaction a worker would run, and queues only what it could not commit at once
    // (docs/decisions/0015-api-commits-its-bursts.md). off: every queued write goes through the queue.
    DIRECT_COMMIT: z.enum(['on', 'off']).default('on'),
    // Days the run ledger (run_ledger: GET runs/<run_id>/, the support page's runs and refusals) keeps
    // a write's rows; the hourly maintenance job deletes older ones.
    RUN_LEDGER_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
    // Jobs per queue per worker process (measured: 8 → 16 took transactions from 100 to 146 req/s).
    WORKER_CONCURRENCY: z.coerce.number().int().positive().default(16),
    DB_POOL_SIZE: z.coerce.number().int().positive().default(10),
    // Children `npm start` keeps running: API processes share the port; one of each uses both cores of
    // a 2-core machine (the API and the workers each saturate about one core under load).
    API_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
    WORKER_PROCESSES: z.coerce.number().int().min(1).max(64).default(1),
    // V8's young generation of each child, in MB (--max-semi-space-size; 0: Node's default). A request's
    // body, its checked form and its echo die young; with room for them, fewer survive a scavenge and
    // get copied: 32 saved Node about 0.5 ms of CPU per 100-transaction request in the bench (README).
    CHILD_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(256).default(32),
    STRIPE_SECRET_KEY: z.string().default(STRIPE_NOT_CONFIGURED),
    STRIPE_API_BASE: z.string().url().default('https://api.stripe.com'),
    // Per vendor call; a call is cut shorter when the caller's RESULT_WAIT_MS is ending (vendor-wait.ts).
    VENDOR_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
    // true: a STRIPE instruction needs the account's Stripe customer recorded (`stripe_customer`), else
    // 400 stripe_customer_not_recorded. The setting for production (README "Payment instructions").
    STRIPE_REQUIRE_RECORDED_CUSTOMER: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
    // Requests per minute per organisation on /v1/data-import, and per client address on obtainToken.
    ORG_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120_000),
    TOKEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
    // Most hits an API process leases at once from the organisation's Redis counter (1: ask Redis on
    // every request, exact to the hit; larger: fewer round trips, refusals up to lease − 1 hits early).
    ORG_RATE_LIMIT_LEASE_MAX: z.coerce.number().int().min(1).max(1000).default(100),
    // Set when the API runs behind a proxy that sets X-Forwarded-For and X-Forwarded-Proto: Express's
    // "trust proxy" forms (hop count, true/false, loopback/linklocal/uniquelocal, addresses and CIDRs).
    TRUST_PROXY: z
      .string()
      .max(2048)
      .optional()
      .transform((value, ctx) => {
        if (value === undefined) return undefined;
        const parsed = parseTrustProxy(value);
        if (typeof parsed === 'string') {
          ctx.addIssue({ code: 'custom', message: parsed });
          return z.NEVER;
        }
        return parsed.value;
      }),
    // A worker-only process (start:worker) serves its own /metrics (job durations, breakers) on this port.
    WORKER_METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    // Bearer token for GET /metrics; unset closes the endpoint to tokens.
    METRICS_TOKEN: z.string().min(16).optional(),
    // Signs the staff session cookie. To rotate it, move the old one to SESSION_SECRET_PREVIOUS: cookies
    // signed with either are accepted, new ones are signed with SESSION_SECRET.
    SESSION_SECRET: z.string().min(32).default(DEV_SESSION_SECRET),
    SESSION_SECRET_PREVIOUS: z.string().min(32).optional(),
    // Secure flag of the staff cookies: "auto" sets it when the request came over HTTPS (behind a proxy
    // that needs TRUST_PROXY); "true" always (the cookie then takes the __Host- prefix); "false" never.
    STAFF_COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
    // A staff session ends after this long without a request, and in any case this long after sign-in.
    STAFF_SESSION_IDLE_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(30 * 60),
    STAFF_SESSION_MAX_SECONDS: z.coerce
      .number()
      .int()
      .positive()
      .default(12 * 3600),
    // Failed staff sign-ins per client address per minute, and per user name per hour (a guesser spread
    // over many addresses still meets the second).
    STAFF_LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
    // Load shedding (README "Load shedding"). Streamed lists, reconciliations and staff CSV downloads
    // each hold a database connection for their whole run. Organisations' streams and staff downloads
    // have a pool each; together they get fewer slots than the database pool has connections, so short
    // requests always find one.
    LIST_STREAMS_PER_PROCESS: z.coerce.number().int().positive().default(6),
    // One organisation's share of those; whatever is set, it is lowered to ⌊(slots − 1) / 4⌋ (at least 1)
    // so that no two organisations hold half of them (api/streaming.ts). Unset: that share.
    LIST_STREAMS_PER_ORGANISATION: z.coerce.number().int().positive().optional(),
    // Staff CSV downloads at once per process, apart from the organisations' slots.
    STAFF_STREAMS_PER_PROCESS: z.coerce.number().int().positive().default(2),
    // Server connections the database gives every process together (a pooler's server pool, PgBouncer's
    // default_pool_size; or PostgreSQL's max_connections less what else uses it), and how many copies of
    // this configuration run (Kubernetes replicas): with both, start-up refuses stream budgets that could
    // pin half of those connections (docs/deployment.md, "Connections"). Unset: not checked.
    DB_SERVER_CONNECTIONS: z.coerce.number().int().positive().max(100_000).optional(),
    DEPLOYMENT_REPLICAS: z.coerce.number().int().positive().max(10_000).default(1),
    // The rest of the connection budget (shared/platform/connection-budget.ts, docs/deployment.md
    // "Connections"): the most worker replicas that can run (the worker autoscaler's maximum), the pods
    // a rolling update adds to each Deployment (maxSurge), and the client connections the pooler takes
    // (PgBouncer's max_client_conn; straight to PostgreSQL, max_connections less what else uses it).
    // With DB_CLIENT_CONNECTIONS set, every process refuses to start when the pools could open more.
    WORKER_REPLICAS: z.coerce.number().int().positive().max(10_000).default(1),
    DEPLOYMENT_SURGE: z.coerce.number().int().min(0).max(10_000).default(0),
    DB_CLIENT_CONNECTIONS: z.coerce.number().int().positive().max(1_000_000).optional(),
    // Whole-cursor bound (PostgreSQL statement_timeout on the cursor's transaction); a list of 1,000,000
    // accounts takes ~6 s.
    LIST_STATEMENT_TIMEOUT_MS: z.coerce.number().int().positive().default(120_000),
    // A streamed response whose client takes fewer than STREAM_MIN_BYTES_PER_INTERVAL bytes in an
    // interval of STREAM_IDLE_TIMEOUT_MS (counted while the response waits on the client) is ended and
    // its connection freed: 64 KiB per 30 s is about 2 KiB/s.
    STREAM_IDLE_TIMEOUT_MS: z.coerce.number().int().positive().default(30_000),
    STREAM_MIN_BYTES_PER_INTERVAL: z.coerce
      .number()
      .int()
      .min(1)
      .default(64 * 1024),
    // How long a request waits for a pooled database connection before 503 database_busy.
    DB_ACQUIRE_TIMEOUT_MS: z.coerce.number().int().positive().default(5_000),
    // unnamed: every statement is planned with its own values (a plan cannot go stale as tables grow
    // without ANALYZE) and works behind a transaction-mode pooler. named: parsed once per connection,
    // still planned with its values inside transactions (SET LOCAL plan_cache_mode); needs session pooling.
    DB_PREPARED_STATEMENTS: z.enum(['unnamed', 'named']).default('unnamed'),
    // true: a process that starts on its own (and `npm start`'s supervisor) applies pending migrations
    // before serving. false: it runs no DDL at all and refuses to start unless the database already has
    // every migration of this build (applied by `npm run migrate` as the owner role), so the service
    // can run as a role that only reads and writes rows (docs/deployment.md "Migrations").
    // How long a starting process waits, in all, for a busy or refusing database (a pooler whose server
    // connections other replicas' migrations hold, too many connections, a restart) and for the
    // migration lock, before it exits saying which it waited on.
    STARTUP_WAIT_MS: z.coerce.number().int().min(0).max(3_600_000).default(120_000),
    MIGRATE_ON_START: z
      .enum(['true', 'false'])
      .default('true')
      .transform((v) => v === 'true'),
    // Queued writes (transactions, payment instructions) waiting for their answer at once.
    QUEUED_REQUESTS_PER_PROCESS: z.coerce.number().int().positive().default(512),
    QUEUED_REQUESTS_PER_ORGANISATION: z.coerce.number().int().positive().default(64),
    // Retry-After of every load-shedding answer (429 too_many_concurrent_requests, 503 server_busy/database_busy).
    LOAD_SHED_RETRY_AFTER_SECONDS: z.coerce.number().int().positive().default(5),
    // obtainToken is parsed before anyone is authenticated: its bodies get this much smaller limit.
    GRAPHQL_BODY_LIMIT_BYTES: z.coerce
      .number()
      .int()
      .positive()
      .default(16 * 1024),
    // Payment-vendor look-ups in flight per organisation in one worker process (the rest wait their turn),
    // so one tenant's burst of bad references cannot fill the vendor's breaker window for everyone.
    VENDOR_CALLS_PER_ORGANISATION: z.coerce.number().int().positive().default(4),
    STAFF_LOGIN_RATE_LIMIT_PER_USER_PER_HOUR: z.coerce.number().int().positive().default(30),
    // Password hashes computed at once per process (scrypt takes 128 MiB each), and how long a sign-in
    // waits for a turn before it is answered 429.
    STAFF_HASH_CONCURRENCY: z.coerce.number().int().positive().default(2),
    STAFF_HASH_WAIT_MS: z.coerce.number().int().positive().default(3000),
    // ── Access and listeners (README "Running it safely in production") ──
    // Address of the STAFF_PORT listener: loopback unless staff reach it through a proxy or VPN that
    // needs another interface (never the public one).
    STAFF_HOST: z.string().min(1).max(255).default('127.0.0.1'),
    // Each API process reads the revoked API keys and disabled organisations again once its copy is
    // this old: a revocation refuses the key's tokens on every replica within about this time.
    TOKEN_REVOCATION_REFRESH_MS: z.coerce.number().int().min(100).max(10_000).default(1000),
    // Node's listener time-outs (its defaults hold a socket that trickles its headers for a minute):
    // whole headers within HTTP_HEADERS_TIMEOUT_MS, the whole request (a 5 MB body) within
    // HTTP_REQUEST_TIMEOUT_MS, else 408 and the socket is closed; an idle keep-alive socket closes
    // after HTTP_KEEP_ALIVE_TIMEOUT_MS. Answers (queued writes wait up to RESULT_WAIT_MS) are not limited.
    HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(60_000),
    HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(5_000),
    // Connections one listener holds at once; past it Node closes new ones unanswered.
    HTTP_MAX_CONNECTIONS: z.coerce.number().int().min(1).max(1_000_000).default(2048),
    // Shutdown on SIGTERM (docs/deployment.md, "Shutdown and probes"): /readyz answers 503 at once, the
    // listener goes on serving for SHUTDOWN_DELAY_MS (the time a load balancer or Kubernetes takes to
    // stop routing to the process), then queued writes still waiting answer 503 result_pending with
    // their Location, the listener closes, and connections still open SHUTDOWN_DRAIN_MS later are cut.
    SHUTDOWN_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(0),
    SHUTDOWN_DRAIN_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    // ── end of access and listeners ──
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .refine((c) => c.HTTP_HEADERS_TIMEOUT_MS <= c.HTTP_REQUEST_TIMEOUT_MS, {
    // Node refuses to start a server otherwise: the headers are part of the request.
    path: ['HTTP_HEADERS_TIMEOUT_MS'],
    message: 'must not exceed HTTP_REQUEST_TIMEOUT_MS',
  })
  .refine((c) => c.DB_SERVER_CONNECTIONS === undefined || 2 * pinnedByStreams(c) <= c.DB_SERVER_CONNECTIONS, {
    path: ['DB_SERVER_CONNECTIONS'],
    message:
      'the API processes of all replicas ((DEPLOYMENT_REPLICAS + DEPLOYMENT_SURGE) × API_PROCESSES) × (LIST_STREAMS_PER_PROCESS + ' +
      'STAFF_STREAMS_PER_PROCESS) streams may each hold a server connection for their whole run: more than half ' +
      'of DB_SERVER_CONNECTIONS, so short requests would queue behind them. Lower the stream budgets, or give ' +
      'the service more server connections',
  })
  .refine((c) => c.STAFF_COOKIE_SECURE !== 'true' || (c.TRUST_PROXY !== undefined && c.TRUST_PROXY !== false), {
    // express-session sets a Secure cookie only on a request it knows came over HTTPS, which this
    // plain-HTTP service learns only from a trusted proxy: without one, sign-in would silently fail.
    path: ['STAFF_COOKIE_SECURE'],
    message: 'STAFF_COOKIE_SECURE=true needs TRUST_PROXY (the TLS proxy in front of the service)',
  });

export type Config = z.infer<typeof ConfigSchema>;

/** Server connections every API process of the deployment may hold at once for streams. */
function pinnedByStreams(c: {
  DEPLOYMENT_REPLICAS: number;
  DEPLOYMENT_SURGE: number;
  API_PROCESSES: number;
  LIST_STREAMS_PER_PROCESS: number;
  STAFF_STREAMS_PER_PROCESS: number;
}): number {
  const processes = (c.DEPLOYMENT_REPLICAS + c.DEPLOYMENT_SURGE) * c.API_PROCESSES;
  return processes * (c.LIST_STREAMS_PER_PROCESS + c.STAFF_STREAMS_PER_PROCESS);
}

/**
 * Which process reads the configuration. Only the API signs (access tokens, staff cookies): a worker
 * runs without the signing secrets, so a deployment need not hand them to it.
 */
export type ProcessRole = 'api' | 'worker';

export function loadConfig(env: NodeJS.ProcessEnv = process.env, role: ProcessRole = 'api'): Config {
  const parsed = ConfigSchema.safeParse(env);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  if (role === 'api') lines.push(...secretProblems(env).map((problem) => `  ${problem}`));
  if (!parsed.success || lines.length > 0) throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  return parsed.data;
}

/** Outside development the secrets are read as given: a default would be a value anyone can read. */
function secretProblems(env: NodeJS.ProcessEnv): string[] {
  if (DEVELOPMENT_ENVIRONMENTS.has(env.NODE_ENV ?? 'development')) return [];
  const problems = SIGNING_SECRETS.map((name) => secretProblem(name, env[name]));
  if (env.SESSION_SECRET_PREVIOUS !== undefined)
    problems.push(secretProblem('SESSION_SECRET_PREVIOUS', env.SESSION_SECRET_PREVIOUS));
  return problems.filter((p): p is string => p !== undefined);
}

/** Vendors whose credentials are not set: their payment instructions cannot succeed. */
export function unconfiguredVendors(config: Pick<Config, 'STRIPE_SECRET_KEY'>): string[] {
  return config.STRIPE_SECRET_KEY === STRIPE_NOT_CONFIGURED ? ['STRIPE'] : [];
}

export function usesDevTokenSecret(config: Config): boolean {
  return config.TOKEN_SECRET === DEV_TOKEN_SECRET;
}

export function usesDevSessionSecret(config: Pick<Config, 'SESSION_SECRET'>): boolean {
  return config.SESSION_SECRET === DEV_SESSION_SECRET;
}
