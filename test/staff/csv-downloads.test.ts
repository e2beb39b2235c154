// CSV downloads hold a database connection for their whole run, like the API's lists, and draw from
// stream slots of their own: one staff user gets a bounded share, the excess is refused with 429.
import { connect, type Socket } from 'node:net';
import { createStreamSlots } from '../../api/streaming';
import { applyFile } from '../../shared/admin/apply.use-case';
import { uniqueSuffix } from '../helpers/context';
import { signedIn, startStaffApp, type StaffClient, type StaffTestApp } from './staff-app';

describe('staff CSV downloads', () => {
  let app: StaffTestApp;
  let big: string;
  let small: string;
  const sockets: Socket[] = [];

  beforeAll(async () => {
    app = await startStaffApp();
    [big, small] = [`CSV_BIG_${uniqueSuffix()}`, `CSV_SMALL_${uniqueSuffix()}`];
    await applyFile(app.db, {
      suppliers: [
        { code: big, document_root: `imports/${big}` },
        { code: small, document_root: `imports/${small}` },
      ],
      accounts: [{ import_supplier: small, external_account_number: 'S-1', state: 'staged' }],
    });
    // ~3 MB of CSV: more than the socket buffers hold for a client that stops reading.
    await app.db.pool.query(
      `INSERT INTO account_import_processes (supplier_code, external_account_number, state)
       SELECT $1, 'EXT-' || lpad(n::text, 7, '0'), 'STAGED' FROM generate_series(1, 100000) AS n`,
      [big],
    );
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await app.close();
  });

  /** A download whose client reads the status line and then stops reading. */
  function stalledCsv(client: StaffClient, supplier: string): Promise<number> {
    const socket = connect(new URL(app.baseUrl).port as unknown as number, '127.0.0.1');
    sockets.push(socket);
    socket.on('error', () => undefined);
    socket.write(
      `GET /support/suppliers/${supplier}/accounts.csv?list=all HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: ${client.cookieHeader()}\r\n\r\n`,
    );
    return new Promise((resolve) =>
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(chunk.toString('latin1'))?.[1] ?? 0));
      }),
    );
  }

  it("refuses a user's download past its share with 429 and Retry-After, while another user downloads", async () => {
    const support = (await signedIn(app, 'support')).client;
    const share = createStreamSlots(app.config).staff.limits.perOrganisation;
    const first = await Promise.all(Array.from({ length: share }, () => stalledCsv(support, big)));
    expect(first).toEqual(Array(share).fill(200));

    const refused = await support.get(`/support/suppliers/${small}/accounts.csv?list=all`);
    expect([refused.status, refused.headers.get('retry-after')]).toEqual([
      429,
      String(app.config.LOAD_SHED_RETRY_AFTER_SECONDS),
    ]);

    const operator = (await signedIn(app, 'operator')).client;
    const other = await operator.get(`/support/suppliers/${small}/accounts.csv?list=all`);
    expect([other.status, other.text.split('\r\n')[1]]).toEqual([200, 'S-1,,']);
  }, 30_000);
});
