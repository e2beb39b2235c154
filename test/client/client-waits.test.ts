// The client says why it waits and stops when waiting cannot help: a refused connection before the
// first token, a URL that reaches some other web server, a queue that does not drain (the real service
// without workers), and a reconciliation stream cut short, each with one readable line and no stack.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app';
import { describeWaiting } from '../../client/wait-reasons';
import { clientWorld, runClient, summaryOf, transaction, writeLines, type ClientWorld } from './client.fixture';
import { startFakeService, tokenAnswer, type FakeService } from './fake-service';

let dir: string;
const services: FakeService[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-waits-'));
});
afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

const line = (i: number) =>
  JSON.stringify({ import_supplier: 'WAITS', external_account_number: `ACC-${i}`, body: `Note ${i}` });

/** A port nothing listens on: bound, read, and closed again. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

it('a refused connection before the first token stops the run at once with a clear line (exit 3)', async () => {
  const file = writeLines(dir, 'refused.ndjson', [line(0), line(1)]);

  const run = await runClient(`http://127.0.0.1:${await closedPort()}`, 'k'.repeat(32), [
    'send',
    'notes',
    file,
    '--runs-dir',
    dir,
    '--retry-deadline',
    '600',
  ]);

  // Not retried for the deadline's 600 s (which would outlast the test's time-out): stopped at once,
  // without ever announcing a wait.
  expect(run.code).toBe(3);
  expect(run.stdout).toMatch(/stopped: cannot connect to http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/);
  expect(run.stdout).toContain('to continue: data-import-client resume');
  expect(run.stderr).not.toContain('waiting on');
  expect(run.stderr).not.toMatch(/^\s+at /m);
});

it('caps the wait a far-future schedule window asks for: the account is looked at, then left for resume', async () => {
  const service = await startFakeService((req) => {
    if (req.url === '/v1/graphql/') return tokenAnswer();
    if (req.method === 'POST')
      return { status: 201, body: { external_identifier: 'FAR-1', schedule_window_start: '2999-01-01T00:00:00Z' } };
    return { status: 200, body: { status: 'PENDING' } };
  });
  services.push(service);
  const file = writeLines(dir, 'far-window.ndjson', [
    JSON.stringify({ import_supplier: 'WAITS', external_account_number: 'FAR-1', account_type: 'DOMESTIC' }),
  ]);

  const run = await runClient(service.baseUrl, 'k'.repeat(32), [
    'send',
    'accounts',
    file,
    '--runs-dir',
    dir,
    '--retry-deadline',
    '1',
    '--json',
  ]);

  expect(run.stderr).not.toContain('TimeoutOverflowWarning');
  expect(summaryOf(run)).toMatchObject({ succeeded: 0, unprocessed: 1, exit_code: 1 });
  const looks = service.received.filter((r) => r.method === 'GET' && r.path.startsWith('/v2/data-import/accounts/'));
  expect(looks.length).toBeGreaterThanOrEqual(1);
}, 120_000);

it('a URL that answers 404 without GraphQL is a wrong address, not a refused key', async () => {
  const html = await startFakeService(() => ({
    status: 404,
    headers: { 'content-type': 'text/html' },
    body: '<html><body>Not Found</body></html>',
  }));
  const json = await startFakeService(() => ({ status: 404, body: { code: 'route_not_found', detail: 'No route' } }));
  services.push(html, json);
  const file = writeLines(dir, 'not-found.ndjson', [line(0)]);
  for (const [service, what] of [
    [html, 'not JSON'],
    [json, 'route_not_found'],
  ] as const) {
    const run = await runClient(service.baseUrl, 'k'.repeat(32), ['send', 'notes', file, '--runs-dir', dir]);
    expect(run.code).toBe(3);
    expect(run.stdout).toContain(`/v1/graphql/ answered 404 (${what}): that is not the data-import service's API`);
    expect(run.stdout).not.toContain('refused the API key');
  }
});

it('names each reason to wait in words, with when it tries again', () => {
  const at = (reason: string) => describeWaiting({ reason, retryAt: 10_500 }, 1000);
  expect(at('network ECONNREFUSED')).toBe(
    'waiting on connection refused: the service is not listening at the address (stopped, or a wrong port); next try in 10 s',
  );
  expect(at('503 result_pending')).toContain('result_pending: the work is queued but the queue is not draining');
  expect(at('503 queue_unavailable')).toContain('queue_unavailable: the service cannot reach its queue');
  expect(at('500 vendor_unavailable')).toContain('vendor_unavailable: the payment vendor does not answer');
  expect(at('429 rate_limited')).toBe('waiting on rate limited (429); limit resets in 10 s');
  expect(at('502')).toBe('waiting on 502; next try in 10 s');
});

describe('against the real service whose queue does not drain (no workers)', () => {
  let app: TestApp;
  let world: ClientWorld;

  beforeAll(async () => {
    // Through the queue (DIRECT_COMMIT=off): a batch the API commits itself would not wait for a worker.
    app = await startTestApp({ RESULT_WAIT_MS: '200', DIRECT_COMMIT: 'off' });
    world = await clientWorld(app, 1);
  });
  afterAll(async () => {
    await app.close();
    rmSync(world.dir, { recursive: true, force: true });
  });

  it('the progress says it waits on result_pending, then the run leaves the lines for resume', async () => {
    const t = transaction(world.tenant.supplier, world.accounts[0]!, 'W-1', '1.00');
    const file = writeLines(world.dir, 'pending.ndjson', [JSON.stringify(t)]);

    const run = await runClient(app.baseUrl, world.tenant.apiKey, [
      'send',
      'transactions',
      file,
      '--runs-dir',
      world.dir,
      // Room for one retry after Retry-After (2 s) even when the first answer is slow to come.
      '--retry-deadline',
      '10',
      '--progress-interval',
      '1',
      '--json',
    ]);

    const events = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events).toContainEqual(
      expect.objectContaining({ event: 'waiting', reason: '503 result_pending', detail: expect.any(String) }),
    );
    expect(events.find((e) => e.event === 'waiting')!.detail).toContain('the queue is not draining');
    expect(summaryOf(run)).toMatchObject({ succeeded: 0, unprocessed: 1 });
  });
});

it('reconcile whose stream is cut short prints one line and no stack trace (exit 3)', async () => {
  const server = createHttpServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.url!.startsWith('/v1/graphql/')) {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(tokenAnswer().body));
      } else if (req.url!.startsWith('/v1/data-import/notes/')) {
        const notes = (JSON.parse(body) as { notes: { body: string }[] }).notes;
        const results = notes.map((n) => ({
          created_at: '2024-01-01T00:00:00Z',
          body: n.body,
          status: 'NOTE_CREATION_SUCCESS',
        }));
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(results));
      } else {
        // Promises more than it sends, then the connection goes: the stream breaks off mid-row.
        res.writeHead(200, { 'content-type': 'application/x-ndjson', 'content-length': '100000' });
        res.write('{"external_account_number":"A"', () => res.socket?.destroy());
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    const journal = path.join(dir, 'reconcile-journal');
    const file = writeLines(dir, 'reconcile.ndjson', [line(0)]);
    expect((await runClient(baseUrl, 'k'.repeat(32), ['send', 'notes', file, '--journal', journal])).code).toBe(0);

    const run = await runClient(baseUrl, 'k'.repeat(32), [
      'reconcile',
      '--supplier',
      'WAITS',
      '--out',
      path.join(dir, 'r.csv'),
      journal,
    ]);

    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the reconciliation stream broke off');
    expect(run.stderr).not.toMatch(/^\s+at /m);
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
