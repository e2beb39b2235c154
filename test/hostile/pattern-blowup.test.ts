// A megabyte-long amount that fails the decimal pattern on its last character: refused with 400 in
// milliseconds, while the same process goes on answering /healthz (the event loop is never held).
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';

describe('a hostile amount', () => {
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp();
    tenant = await createTenant(app);
  });
  afterAll(() => app.close());

  it('is refused with 400 max_length quickly while /healthz keeps answering', async () => {
    const timed = async <T>(work: () => Promise<T>) => {
      const started = performance.now();
      const value = await work();
      return { value, ms: performance.now() - started };
    };
    const baseline = await timed(() => request(app.baseUrl, 'GET', '/healthz'));
    const hostile = {
      import_supplier: tenant.supplier,
      external_account_number: 'ANY',
      transactions: [
        { transaction_id: 'T-1', transaction_date: '2020-01-01', type: 'CHARGE', amount: `${'1'.repeat(1_000_000)}x` },
      ],
    };

    let answered = false;
    const refusal = timed(() =>
      request(app.baseUrl, 'POST', '/v1/data-import/transactions/create/', { token: tenant.token, body: hostile }),
    ).finally(() => (answered = true));
    const healthLatencies: number[] = [];
    while (!answered) {
      const probe = await timed(() => request(app.baseUrl, 'GET', '/healthz'));
      expect(probe.value.status).toBe(200);
      healthLatencies.push(probe.ms);
    }
    const { value: res, ms } = await refusal;

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      { attr: 'transactions.0.amount', code: 'max_length', detail: expect.any(String) },
    ]);
    // Parsing a 1 MB body costs milliseconds; the former pattern needed minutes for this amount.
    expect(ms).toBeLessThan(2_000 + 20 * baseline.ms);
    expect(Math.max(...healthLatencies)).toBeLessThan(1_000 + 20 * baseline.ms);
  }, 30_000);
});
