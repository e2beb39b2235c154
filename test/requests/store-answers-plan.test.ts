// The group's answer update keys on request_results' primary key whatever the table's size: while the
// table is small (a fresh deployment, a test database) the planner used to scan all of it for every
// group, because the answers' ids came only inside the JSON records it joined on. Counted, not timed:
// the scans this backend made, read from pg_stat_xact_user_tables in the same transaction.
import { randomUUID } from 'node:crypto';
import { inTransaction } from '../../shared/platform/db';
import { insertPendingMany, storeAnswers } from '../../shared/requests/request-result.repository';
import { startTenantApp } from '../helpers/tenant-app';
import type { TestApp } from '../helpers/app';
import { organisationOf } from '../transactions/transactions.fixture';

describe('storing the answers of a group', () => {
  let app: TestApp;
  let organisationId: number;

  beforeAll(async () => {
    const started = await startTenantApp();
    app = started.app;
    organisationId = organisationOf(started.tenant);
  });
  afterAll(async () => app.close());

  it('reads request_results by its primary key, never by a sequential scan, while the table is small', async () => {
    const rows = Array.from({ length: 50 }, () => ({
      id: randomUUID(),
      organisationId,
      accountId: null,
      runId: null,
      endpoint: 'transactions/create',
      idempotencyKey: null,
      bodyHash: 'h',
    }));
    expect((await insertPendingMany(app.db.pool, rows, rows[0]!.id)).size).toBe(rows.length);
    const group = rows.slice(0, 5);

    const scans = await inTransaction(app.db, async (sql) => {
      await storeAnswers(
        sql,
        group.map((r) => ({ id: r.id, httpStatus: 201, body: { ok: true }, errorCode: null })),
      );
      const { rows: counted } = await sql.query<{ seq: string; idx: string }>(
        `SELECT seq_scan AS seq, coalesce(idx_scan, 0) AS idx FROM pg_stat_xact_user_tables WHERE relname = 'request_results'`,
      );
      return counted[0];
    });

    expect(scans).toEqual({ seq: '0', idx: expect.stringMatching(/^[1-9]/) as unknown });
    const { rows: stored } = await app.db.pool.query<{ id: string; http_status: number }>(
      'SELECT id, http_status FROM request_results WHERE id = ANY($1::text[]) AND finished_at IS NOT NULL',
      [rows.map((r) => r.id)],
    );
    expect(stored.map((r) => r.id).sort()).toEqual(group.map((r) => r.id).sort());
  });
});
