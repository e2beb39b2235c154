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
