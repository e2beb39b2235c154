// Slowloris: sockets that send their headers a byte at a time. Node's defaults hold each for a minute
// (and check only every 30 s); the listener's own time-outs close them (408) within
// HTTP_HEADERS_TIMEOUT_MS, set small here, while another tenant's requests go on being answered. And a
// listener holds at most HTTP_MAX_CONNECTIONS sockets: past it, new ones are dropped unanswered.
import { connect, type Socket } from 'node:net';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';
import { until } from '../helpers/until';

interface Trickler {
  /** Bytes written so far (one per tick). */
  sent: () => number;
  /** Once the socket has closed: what the server answered, and whether the server ended it. */
  outcome: () => { answer: string; endedByServer: boolean } | undefined;
}

/** A socket that starts a request and then sends one more header byte every `everyMs`, never finishing. */
function trickle(port: number, everyMs: number): Trickler {
  const socket = connect(port, '127.0.0.1');
  let sent = 0;
  let endedByServer = false;
  const chunks: Buffer[] = [];
  const timer = setInterval(() => {
    if (!socket.writable) return;
    socket.write(sent === 0 ? 'GET /v1/data-import/openapi.json HTTP/1.1\r\nHost: x\r\nX-Slow: ' : 'a');
    sent += 1;
  }, everyMs);
  socket.on('data', (c: Buffer) => chunks.push(c));
  socket.on('end', () => (endedByServer = true));
  socket.on('error', () => undefined); // a write racing the server's close
  let outcome: ReturnType<Trickler['outcome']>;
  socket.on('close', () => {
    clearInterval(timer);
    outcome = { answer: Buffer.concat(chunks).toString(), endedByServer };
  });
  return { sent: () => sent, outcome: () => outcome };
}

describe('slow headers', () => {
  const TRICKLERS = 40;
  let app: TestApp;
  let tenant: Tenant;

  beforeAll(async () => {
    app = await startTestApp({ HTTP_HEADERS_TIMEOUT_MS: '3000', HTTP_REQUEST_TIMEOUT_MS: '6000' });
    tenant = await createTenant(app, { accounts: [{ external_account_number: 'SLOW-1', state: 'staged' }] });
  });
  afterAll(() => app.close());

  it("answers another tenant's requests while sockets trickle their headers, and closes every trickling socket with 408", async () => {
    const tricklers = Array.from({ length: TRICKLERS }, () => trickle(app.api.port, 50));
    await until('every trickling socket has started sending', () =>
      tricklers.every((t) => t.sent() >= 3) ? true : undefined,
    );

    const answers: number[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await request(
        app.baseUrl,
        'GET',
        `/v1/data-import/account-transfer-status/${tenant.supplier}/SLOW-1/`,
        { token: tenant.token },
      );
      answers.push(res.status);
    }
    expect(answers).toEqual(Array(10).fill(200));

    // Node's defaults would hold them for 60 s and more: the test's deadline ends long before.
    const outcomes = await until(
      'the server to close every trickling socket',
      () => (tricklers.every((t) => t.outcome()) ? tricklers.map((t) => t.outcome()!) : undefined),
      20_000,
    );
    for (const outcome of outcomes) {
      expect(outcome.endedByServer).toBe(true);
      expect(outcome.answer).toMatch(/^HTTP\/1\.1 408 /);
    }
    expect((await request(app.baseUrl, 'GET', '/healthz')).status).toBe(200);
  });
});

describe('connections per listener', () => {
  it('drops connections past HTTP_MAX_CONNECTIONS unanswered, and serves again once some close', async () => {
    const app = await startTestApp({ HTTP_MAX_CONNECTIONS: '3' });
    try {
      const drops: unknown[] = [];
      app.api.server.on('drop', (d: unknown) => drops.push(d));
      const held = await Promise.all(
        Array.from(
          { length: 3 },
          () =>
            new Promise<Socket>((resolve) => {
              const s = connect(app.api.port, '127.0.0.1', () => resolve(s));
            }),
        ),
      );
      await until(
        'the listener to hold three connections',
        () =>
          new Promise<true | undefined>((resolve) =>
            app.api.server.getConnections((_err, n) => resolve(n === 3 ? true : undefined)),
          ),
      );

      const extra = connect(app.api.port, '127.0.0.1');
      const received: Buffer[] = [];
      let closed = false;
      extra.on('data', (c: Buffer) => received.push(c));
      extra.on('error', () => undefined);
      extra.on('close', () => (closed = true));
      await until('the server to drop the connection past the cap', () => (closed ? true : undefined));

      expect(drops).toHaveLength(1);
      expect(Buffer.concat(received).length).toBe(0);
      for (const s of held) s.destroy();
      await until(
        'the listener to release them',
        () =>
          new Promise<true | undefined>((resolve) =>
            app.api.server.getConnections((_err, n) => resolve(n === 0 ? true : undefined)),
          ),
      );
      expect((await request(app.baseUrl, 'GET', '/healthz')).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
