// A client-chosen X-Request-Id: it never becomes the request's id (one tenant could otherwise write
// log and job lines under an id another tenant uses); it is logged apart, as client_request_id,
// bounded and with no character that could fake a line or drive a terminal.
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import pino from 'pino';
import { createTenant, request, startTestApp, type Tenant, type TestApp } from '../helpers/app';

interface Line {
  req?: { id?: string; client_request_id?: string; path?: string };
}

describe('client-chosen request ids', () => {
  let app: TestApp;
  let victim: Tenant;
  let attacker: Tenant;
  const lines: Line[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Line);
        done();
      },
    });
    app = await startTestApp({}, { logger: pino({ level: 'info' }, sink) });
    victim = await createTenant(app);
    attacker = await createTenant(app);
  });
  afterAll(() => app.close());

  const list = (t: Tenant, headers: Record<string, string> = {}) =>
    request(app.baseUrl, 'GET', `/v1/data-import/all-account-import-processes/${t.supplier}/`, {
      token: t.token,
      headers,
    });

  it("never logs a request under an id another tenant's request has", async () => {
    const theirs = await list(victim);
    const stolenId = theirs.headers.get('x-request-id')!;

    const mine = await list(attacker, { 'x-request-id': stolenId });

    expect(mine.status).toBe(200);
    expect(mine.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(mine.headers.get('x-request-id')).not.toBe(stolenId);
    const underStolenId = lines.filter((l) => l.req?.id === stolenId);
    expect(underStolenId).toHaveLength(1);
    expect(underStolenId[0]!.req?.client_request_id).toBeUndefined();
    const attackers = lines.filter((l) => l.req?.id === mine.headers.get('x-request-id'));
    expect(attackers).toEqual([
      expect.objectContaining({ req: expect.objectContaining({ client_request_id: stolenId }) }),
    ]);
  });

  it('logs at most 128 characters of it, without control characters (raw bytes on the wire)', async () => {
    // C1 controls arrive as Latin-1 bytes (HTTP allows obs-text): 0x9b is a terminal's one-byte CSI, 0x85 NEL.
    const value = Buffer.concat([
      Buffer.from('tag'),
      Buffer.from([0x9b]),
      Buffer.from('31m'),
      Buffer.from([0x85, 0x09]),
      Buffer.from('x'.repeat(400)),
    ]);
    const head = Buffer.concat([
      Buffer.from(`GET /v1/data-import/all-account-import-processes/${attacker.supplier}/ HTTP/1.1\r\n`),
      Buffer.from(`Host: 127.0.0.1\r\nAuthorization: Token ${attacker.token}\r\nConnection: close\r\nX-Request-Id: `),
      value,
      Buffer.from('\r\n\r\n'),
    ]);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(app.api.port, '127.0.0.1', () => socket.write(head));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      socket.on('error', reject);
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
    });

    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    const id = /^x-request-id: (.+)\r$/im.exec(answer)![1]!;
    const logged = lines.find((l) => l.req?.id === id)!.req!.client_request_id!;
    expect(logged).toBe(`tag31m${'x'.repeat(122)}`);
    expect(logged).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/); // eslint-disable-line no-control-regex
  });
});
