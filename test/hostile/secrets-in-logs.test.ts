// Secrets never reach a log line or an error body: the API key, access and refresh tokens, note
// bodies, and the Stripe secret key on the vendor path (healthy and failing). Logs
// are captured at trace level from the API and the workers, the pattern of test/observability.
import { Writable } from 'node:stream';
import pino from 'pino';
import { resetVendorBreakers } from '../../shared/payment-instructions/vendors/vendor-breakers';
import { startWorkers, type RunningWorkers } from '../../worker/worker';
import { createTenant, obtainToken, request, startTestApp, type Json, type TestApp } from '../helpers/app';
import { uniqueSuffix } from '../helpers/context';
import { startFakeStripe, type FakeStripe } from '../helpers/fake-stripe';
import { NOTES, PAYMENT_INSTRUCTIONS, TRANSACTIONS } from '../fuzz/endpoints';

describe('secrets in logs and error bodies', () => {
  const lines: string[] = [];
  const answers: Json[] = [];
  let app: TestApp;
  let workers: RunningWorkers;
  let fake: FakeStripe;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = pino({ level: 'trace' }, sink);
    fake = await startFakeStripe({ secretKey: `sk_test_${uniqueSuffix()}_secret`, slowMs: 400 });
    app = await startTestApp(
      {
        STRIPE_API_BASE: fake.url,
        STRIPE_SECRET_KEY: fake.secretKey,
        VENDOR_TIMEOUT_MS: '200',
        RESULT_WAIT_MS: '15000',
      },
      { logger },
    );
    workers = await startWorkers({ config: app.config, db: app.db, logger });
    resetVendorBreakers({ volumeThreshold: 100 });
  });
  afterAll(async () => {
    await workers.stop();
    await app.close();
    await fake.close();
    resetVendorBreakers();
  });

  it('logs none of them, and no answer carries one', async () => {
    const keep = (res: Json) => (answers.push(res), res);
    const tenant = await createTenant(app, {
      accounts: [
        { external_account_number: 'LOG-1', state: 'imported', open_statement_from: '2019-10-01' },
        { external_account_number: 'LOG-2', state: 'imported' },
        { external_account_number: 'LOG-3', state: 'imported' },
      ],
    });
    const world = { tenant, fake } as Parameters<typeof NOTES.valid>[0];
    const signedIn = keep(await obtainToken(app.baseUrl, { APIKey: tenant.apiKey })).body.data.obtainToken;
    const refreshed = keep(await obtainToken(app.baseUrl, { refreshToken: signedIn.refreshToken })).body.data
      .obtainToken;
    keep(await obtainToken(app.baseUrl, { refreshToken: signedIn.refreshToken })); // reuse: revokes the family
    keep(await obtainToken(app.baseUrl, { APIKey: `${tenant.apiKey}-wrong` }));
    const noteBody = `confidential customer note ${uniqueSuffix()}`;
    const post = (path: string, body: unknown, token = refreshed.token as string) =>
      request(app.baseUrl, 'POST', path, { token, body }).then(keep);

    await post(NOTES.path, { ...NOTES.valid(world, { external: 'LOG-1' }), notes: [{ body: noteBody }] });
    await post(NOTES.path, {
      ...NOTES.valid(world, { external: 'LOG-1' }),
      notes: [{ body: noteBody, created_at: 'not a date' }],
    });
    await post(TRANSACTIONS.path, {
      ...TRANSACTIONS.valid(world, { external: 'LOG-1' }),
      transactions: [
        { transaction_id: 'L-1', transaction_date: '2019-10-04', amount: '1', type: 'CHARGE', note: noteBody },
      ],
    });
    await post(
      NOTES.path,
      { ...NOTES.valid(world, { external: 'LOG-1' }), notes: [{ body: noteBody }] },
      `${refreshed.token as string}x`,
    );
    fake.setMode('error500');
    const failing = await post(PAYMENT_INSTRUCTIONS.path, PAYMENT_INSTRUCTIONS.valid(world, { external: 'LOG-2' }));
    fake.setMode('healthy');
    const created = await post(PAYMENT_INSTRUCTIONS.path, PAYMENT_INSTRUCTIONS.valid(world, { external: 'LOG-3' }));

    expect(failing.status).toBe(500);
    expect(created.status).toBe(201);
    const log = lines.join('');
    // The capture works: requests and job attempts are in it.
    expect(log).toContain('"path":"/v1/data-import/notes/create/"');
    expect(log).toContain('job attempt failed');
    const secrets = {
      apiKey: tenant.apiKey,
      token: signedIn.token as string,
      refreshedToken: refreshed.token as string,
      refreshToken: signedIn.refreshToken as string,
      newRefreshToken: refreshed.refreshToken as string,
      noteBody,
      stripeSecretKey: fake.secretKey,
    };
    // A 201 echoes the caller's own note back to it; refusals and failures must carry nothing.
    const refusals = answers.filter((a) => a.status >= 400 || a.body?.errors);
    expect(refusals.length).toBeGreaterThanOrEqual(5);
    const everything = `${log}\n${refusals.map((a) => JSON.stringify(a.body)).join('\n')}`;
    for (const [name, secret] of Object.entries(secrets)) {
      expect({ name, found: everything.includes(secret) }).toEqual({ name, found: false });
    }
    // Not even a recognisable fragment of the JWT signature or the key's tail.
    expect(everything).not.toContain((signedIn.token as string).split('.')[2]);
    expect(everything).not.toContain(fake.secretKey.slice(-12));
  });
});
