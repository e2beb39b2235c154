// Turns a failed PostgreSQL connection (straight to the server or through a pooler such as PgBouncer)
// into one sentence saying what is wrong and what to do, instead of "start PostgreSQL" for every cause.

const START_POSTGRES =
  'start it with `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`, or `docker compose up -d postgres`';

// Network-level failures: nothing answered at the address, so starting the server is the right advice.
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ECONNRESET',
]);

/** The URL with its password hidden, for messages and logs. */
export function redactUrl(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = '***';
  return u.toString();
}

/** The database a URL names (its path without the leading slash). */
export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}

function roleName(url: string): string {
  return decodeURIComponent(new URL(url).username) || '(the default role)';
}

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

// PgBouncer answers from itself with SQLSTATE 08P01, also for "database … does not exist" (which it
// relays from the server), so the message text tells the cases apart.
const MISSING_DATABASE = /^database ".{1,200}" does not exist$/;

/** True when the error says the database named in the URL does not exist (direct or through PgBouncer). */
export function isMissingDatabase(err: unknown): boolean {
  const code = codeOf(err);
  if (code === '3D000') return true;
  const message = (err as Error | null)?.message ?? '';
  return code === '08P01' && message.length <= 300 && MISSING_DATABASE.test(message);
}

/**
 * One sentence for a connection (or first query) to `url` that failed with `err`: unreachable,
 * refused credentials, missing database, no CONNECT privilege, no free slots, or the pooler refusing.
 */
export function describeConnectFailure(err: unknown, url: string): string {
  const where = redactUrl(url);
  const database = databaseName(url);
  const role = roleName(url);
  const code = codeOf(err);
  const message = ((err as Error | null)?.message ?? String(err)).slice(0, 500);
  if (code !== undefined && UNREACHABLE_CODES.has(code)) {
    return `PostgreSQL is not reachable at ${where} (${message}): ${START_POSTGRES}`;
  }
  if (/timeout/i.test(message) && code === undefined) {
    return `PostgreSQL did not answer at ${where} in time (${message}): check the host, the port and any firewall`;
  }
  if (isMissingDatabase(err)) {
    return `database "${database}" does not exist at ${where}: create it (CREATE DATABASE "${database}" OWNER <owner role>) and run \`npm run migrate\``;
  }
  switch (code) {
    case '28P01':
      return `PostgreSQL refused the password of role "${role}" at ${where}: check the user and password in DATABASE_URL`;
    case '28000':
      return `PostgreSQL refused role "${role}" on database "${database}" at ${where} (${message}): create the role, or allow it in pg_hba.conf`;
    case '42501':
      return `role "${role}" may not use database "${database}" at ${where} (${message}): GRANT CONNECT ON DATABASE "${database}" TO "${role}"`;
    case '53300':
      return `PostgreSQL has no free connection slot at ${where} (${message}): lower DB_POOL_SIZE or the number of processes, raise max_connections, or put a pooler in front (docs/deployment.md "Connections")`;
    case '57P03':
      return `PostgreSQL at ${where} is starting up or shutting down (${message}): try again shortly`;
    case '08P01':
      // A protocol-level refusal at connection time comes from a pooler, not from PostgreSQL itself.
      return `the connection pooler at ${where} refused the connection (${message}): check that it lists database "${database}" and role "${role}" (PgBouncer: [databases] and auth_file)`;
    default:
      return `PostgreSQL at ${where} refused the connection (${code ?? 'no SQLSTATE'}: ${message})`;
  }
}

// ── The database saying "not now" while the service runs ──
// SQLSTATEs of a refused, dropped or not-yet-ready connection: too many connections (53300), the
// server shutting down or starting (57P01 admin_shutdown, 57P02 crash_shutdown, 57P03
// cannot_connect_now), and class 08 (connection exception), which a pooler uses for its own refusals.
const UNAVAILABLE_SQLSTATES = new Set(['53300', '57P01', '57P02', '57P03']);
// Socket-level failures of an established or new connection.
const SOCKET_CODES = new Set([...UNREACHABLE_CODES, 'EPIPE', 'ECONNABORTED', 'ENETUNREACH', 'EADDRNOTAVAIL']);
// Prisma's codes for the same: server unreachable (P1001), connect time-out (P1002), operation time-out
// (P1008), server closed the connection (P1017), pool time-out (P2024).
const PRISMA_CODES = new Set(['P1001', 'P1002', 'P1008', 'P1017', 'P2024']);
// Prisma's driver-adapter error kinds (@prisma/adapter-pg maps pg's errors to these).
const ADAPTER_KINDS = new Set(['TooManyConnections', 'DatabaseNotReachable', 'ConnectionClosed', 'SocketTimeout']);
// What pg, pg-pool and PgBouncer say when the connection is refused or lost; messages are bounded
// before the pattern runs.
const UNAVAILABLE_MESSAGE =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|server conn crashed|no more connections allowed|pgbouncer cannot connect to server|server login retry|query_wait_timeout|client_login_timeout|database is paused|server shutting down|the database system is (starting up|shutting down|in recovery mode)|terminating connection due to administrator command|too many connections|remaining connection slots are reserved|Unable to start a transaction in the given time/i;

// Properties an error may wrap another one in: pg and Node (`cause`), Prisma's known request errors
// (`meta.driverAdapterError`), the driver-adapter error itself (`cause` holding `{kind, originalCode}`).
function wrapped(node: object): unknown[] {
  const n = node as { cause?: unknown; meta?: { driverAdapterError?: unknown }; errors?: unknown };
  const inner: unknown[] = [n.cause, n.meta?.driverAdapterError];
  // AggregateError (several addresses refused at once).
  if (Array.isArray(n.errors)) inner.push(...(n.errors as unknown[]).slice(0, 4));
  return inner;
}

function unavailableHere(node: object): boolean {
  const { code, kind, originalCode, message } = node as Record<string, unknown>;
  for (const c of [code, originalCode]) {
    if (typeof c !== 'string') continue;
    if (UNAVAILABLE_SQLSTATES.has(c) || (c.length === 5 && c.startsWith('08'))) return true;
    if (SOCKET_CODES.has(c) || PRISMA_CODES.has(c)) return true;
  }
  if (typeof kind === 'string' && ADAPTER_KINDS.has(kind)) return true;
  return typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message.slice(0, 300));
}

/**
 * True when `err`, or an error it wraps (at most 8 deep), says the database refused, dropped or could
 * not yet give a connection: nothing about the request is wrong, and the same request later may work.
 * A missing database is a configuration fault, not pressure, and is left out.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const queue: unknown[] = [err];
  for (let seen = 0; seen < 8 && queue.length > 0; seen++) {
    const node = queue.shift();
    if (typeof node !== 'object' || node === null) continue;
    if (isMissingDatabase(node)) return false;
    if (unavailableHere(node)) return true;
    queue.push(...wrapped(node));
  }
  return false;
}
