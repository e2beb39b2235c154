// Which failures are the database saying "not now" (503 with Retry-After), and a COMMIT cut off on a
// real connection: its outcome is unknown, and the answer says so.
import { Client } from 'pg';
import { asBackPressure } from '../../api/error-middleware';
import { inTransaction } from '../../shared/platform/db';
import { AppError, CommitOutcomeUnknown, ValidationError } from '../../shared/platform/errors';
import { isDatabaseUnavailable } from '../../shared/platform/pg-errors';
import { openTestDb, testDatabaseUrl, type TestDb } from '../helpers/context';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });
const codeOf = (err: unknown) => (err instanceof AppError ? `${err.status} ${err.code}` : 'passed on');

describe('isDatabaseUnavailable', () => {
  it.each([
    ['too many connections (53300)', withCode('53300', 'sorry, too many clients already')],
    ['administrator shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['starting up (57P03)', withCode('57P03', 'the database system is starting up')],
    ['connection failure (08006)', withCode('08006')],
    ['PgBouncer refusing (08P01)', withCode('08P01', 'no more connections allowed (max_client_conn)')],
    ['a refused socket', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:6432')],
    ['pg losing the server', new Error('Connection terminated unexpectedly')],
    ['PgBouncer restarting', new Error('server conn crashed?')],
    ['Prisma pool time-out (P2024)', withCode('P2024', 'Timed out fetching a new connection')],
    ['Prisma unreachable (P1001)', withCode('P1001', "Can't reach database server")],
    ['a driver-adapter error', Object.assign(new Error('adapter'), { cause: { kind: 'TooManyConnections' } })],
    [
      "Prisma's known error wrapping the adapter's",
      Object.assign(new Error('x'), {
        code: 'P2010',
        meta: { driverAdapterError: { cause: { originalCode: '57P01' } } },
      }),
    ],
    ['wrapped in a cause', new Error('outer', { cause: withCode('53300') })],
  ])('%s is unavailability', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(true);
  });

  it.each([
    ['a unique violation', withCode('23505', 'duplicate key value')],
    ['a missing database (a configuration fault)', withCode('3D000', 'database "x" does not exist')],
    ['a syntax error', withCode('42601')],
    ['a plain error', new Error('boom')],
    ['not an error', 'text'],
  ])('%s is not', (_what, err) => {
    expect(isDatabaseUnavailable(err)).toBe(false);
  });

  it('looks at most 8 errors deep, so a cyclic or very long chain cannot hold the request', () => {
    const cyclic: { cause?: unknown; message: string } = { message: 'a' };
    cyclic.cause = cyclic;
    expect(isDatabaseUnavailable(cyclic)).toBe(false);
    let deep: unknown = withCode('53300');
    for (let i = 0; i < 20; i++) deep = new Error(`level ${i}`, { cause: deep });
    expect(isDatabaseUnavailable(deep)).toBe(false);
  });
});

describe('asBackPressure (the error middleware)', () => {
  it('answers 503 with a code for each kind of pressure, and passes everything else on', () => {
    expect(codeOf(asBackPressure(withCode('53300'), 5))).toBe('503 database_unavailable');
    expect(codeOf(asBackPressure(new Error('timeout exceeded when trying to connect'), 5))).toBe('503 database_busy');
    expect(codeOf(asBackPressure(new CommitOutcomeUnknown(withCode('57P01')), 5))).toBe('503 write_outcome_unknown');
    expect(codeOf(asBackPressure(new Error('boom'), 5))).toBe('passed on');
    const validation = ValidationError.single('x', 'invalid', 'bad');
    expect(asBackPressure(validation, 5)).toBe(validation);
  });
});

describe('a COMMIT cut off by a lost connection', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb({ DB_POOL_SIZE: '2' });
  });
  afterAll(() => t.db.close());

  it('throws CommitOutcomeUnknown, which the API answers 503 write_outcome_unknown', async () => {
    const killer = new Client({ connectionString: testDatabaseUrl });
    await killer.connect();
    try {
      const outcome = await inTransaction(t.db, async (sql) => {
        const { rows } = await sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
        // The server connection ends between the last statement and the COMMIT.
        await killer.query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
      }).then(
        () => 'committed',
        (err: unknown) => err,
      );
      expect(outcome).toBeInstanceOf(CommitOutcomeUnknown);
      expect(codeOf(asBackPressure(outcome, 5))).toBe('503 write_outcome_unknown');
      // The pool recovers: the next transaction gets a live connection.
      await expect(inTransaction(t.db, (sql) => sql.query('SELECT 1'))).resolves.toBeDefined();
    } finally {
      await killer.end();
    }
  });
});
