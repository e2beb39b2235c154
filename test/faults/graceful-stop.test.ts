// Found by the fault suite (the API's SIGTERM took 10 s under load): keep-alive clients kept sending on
// their open connections, so the server never drained and the 10 s force-close cut requests in flight.
import { createTenant, request, startTestApp } from '../helpers/app';
import { until } from '../helpers/until';
import {
  envelope,
  importedAccount,
  organisationOf,
  payment,
  postTransactions,
} from '../transactions/transactions.fixture';

describe('stopping the API while keep-alive clients keep sending', () => {
  it('drains in well under the 10 s force-close, answering every request already in flight', async () => {
    // No workers: a queued request waits the whole RESULT_WAIT_MS, so it is surely in flight at stop.
    const app = await startTestApp({ RESULT_WAIT_MS: '1500', DIRECT_COMMIT: 'off' });
    try {
      const tenant = await createTenant(app);
      const account = await importedAccount(app, tenant);
      let stopping = false;
      const seen: number[] = [];
      // One list at a time per organisation: a single organisation's share of stream slots is 1 by default.
      const hammer = async (owner: typeof tenant) => {
        while (!stopping) {
          const res = await request(
            app.baseUrl,
            'GET',
            `/v1/data-import/all-account-import-processes/${owner.supplier}/`,
            { token: owner.token },
          ).catch(() => undefined);
          if (res) seen.push(res.status);
        }
      };
      const clients = [tenant, await createTenant(app), await createTenant(app)].map(hammer);
      await until('the keep-alive clients to be under way', () => (seen.length >= 6 ? true : undefined), 15_000, 10);
      const inFlight = postTransactions(app, tenant.token, envelope(tenant, account, [payment('in-flight')]), {
        idempotencyKey: 'in-flight',
      });
      // In flight once its pending row is stored: it then waits for a worker that never comes.
      await until(
        'the queued request to be in flight',
        async () => {
          const { rows } = await app.db.pool.query(
            "SELECT 1 FROM request_results WHERE organisation_id = $1 AND idempotency_key = 'in-flight'",
            [organisationOf(tenant)],
          );
          return rows.length > 0 ? true : undefined;
        },
        15_000,
        10,
      );

      const started = Date.now();
      await app.api.stop();
      const tookMs = Date.now() - started;
      stopping = true;
      await Promise.all(clients);

      // Well under the force-close, with room for a busy machine: a force-close would cut the lists.
      expect(tookMs).toBeLessThan(8_000);
      expect((await inFlight).status).toBe(503);
      expect((await inFlight).body.code).toBe('result_pending');
      expect(seen.filter((s) => s !== 200)).toEqual([]);
    } finally {
      await app.workers?.stop();
      await app.db.close();
    }
  });
});
