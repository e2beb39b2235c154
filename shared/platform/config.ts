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

export const ConfigSchema = z.object({
  NODE_ENV: z.string().max(64).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8000),
  HOST: z.string().default('0.0.0.0'),
  // The staff pages (sign-in, queue dashboard, support) on a listener of their own, which a firewall
  // or proxy can keep off the internet; the main port then no longer serves them. 0 picks a free port.
  STAFF_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  DATABASE_URL: z.string().url().default('postgresql://postgres@127.0.0.1:5432/data_import'),
  REDIS_URL: z.string().url().default('redis://127.0.0.1:6379'),
  // The hash tag keeps every key of a queue in one Redis Cluster slot.
  QUEUE_PREFIX: z.string().min(1).default('{import}'),
  TOKEN_SECRET: z.string().min(32).default(DEV_TOKEN_SECRET),
  TOKEN_TTL_SECONDS: z.coerce.number().int().positive().default(3600),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce.number().int().positive().default(7 * 24 * 3600),
  DOCUMENT_BUCKET: z.string().min(1).default('production-files'),
  BODY_LIMIT_BYTES: z.coerce.number().int().positive().default(5 * 1024 * 1024),
  MAX_ITEMS_PER_REQUEST: z.coerce.number().int().positive().default(1000),
  RESULT_WAIT_MS: z.coerce.number().int().positive().default(25_000),
  // Jobs per queue per worker process (measured: 8 → 16 took transactions from 100 to 146 req/s).
  WORKER_CONCURRENCY: z.coerce.number().int().positive().default(16),
  DB_POOL_SIZE: z.coerce.number().int().positive().default(10),
  STRIPE_SECRET_KEY: z.string().default(STRIPE_NOT_CONFIGURED),
  STRIPE_API_BASE: z.string().url().default('https://api.stripe.com'),
  VENDOR_TIMEOUT_MS: z.coerce.number().int().positive().default(5000),
  // Requests per minute per organisation on /v1/data-import, and per client address on obtainToken.
  ORG_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(120_000),
  TOKEN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(60),
  // Set when the API runs behind a proxy that sets X-Forwarded-For and X-Forwarded-Proto: Express's
  // "trust proxy" forms (hop count, true/false, loopback/linklocal/uniquelocal, addresses and CIDRs).
  TRUST_PROXY: z.string().max(2048).optional().transform((value, ctx) => {
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
  STAFF_SESSION_IDLE_SECONDS: z.coerce.number().int().positive().default(30 * 60),
  STAFF_SESSION_MAX_SECONDS: z.coerce.number().int().positive().default(12 * 3600),
  // Failed staff sign-ins per client address per minute, and per user name per hour (a guesser spread
  // over many addresses still meets the second).
  STAFF_LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
  STAFF_LOGIN_RATE_LIMIT_PER_USER_PER_HOUR: z.coerce.number().int().positive().default(30),
  // Password hashes computed at once per process (scrypt takes 128 MiB each), and how long a sign-in
  // waits for a turn before it is answered 429.
  STAFF_HASH_CONCURRENCY: z.coerce.number().int().positive().default(2),
  STAFF_HASH_WAIT_MS: z.coerce.number().int().positive().default(3000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
}).refine((c) => c.STAFF_COOKIE_SECURE !== 'true' || (c.TRUST_PROXY !== undefined && c.TRUST_PROXY !== false), {
  // express-session sets a Secure cookie only on a request it knows came over HTTPS, which this
  // plain-HTTP service learns only from a trusted proxy: without one, sign-in would silently fail.
  path: ['STAFF_COOKIE_SECURE'],
  message: 'STAFF_COOKIE_SECURE=true needs TRUST_PROXY (the TLS proxy in front of the service)',
});

export type Config = z.infer<typeof ConfigSchema>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = ConfigSchema.safeParse(env);
  const lines = parsed.success ? [] : parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
  lines.push(...secretProblems(env).map((problem) => `  ${problem}`));
  if (!parsed.success || lines.length > 0) throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  return parsed.data;
}

/** Outside development the secrets are read as given: a default would be a value anyone can read. */
function secretProblems(env: NodeJS.ProcessEnv): string[] {
  if (DEVELOPMENT_ENVIRONMENTS.has(env.NODE_ENV ?? 'development')) return [];
  const problems = SIGNING_SECRETS.map((name) => secretProblem(name, env[name]));
  if (env.SESSION_SECRET_PREVIOUS !== undefined) problems.push(secretProblem('SESSION_SECRET_PREVIOUS', env.SESSION_SECRET_PREVIOUS));
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
