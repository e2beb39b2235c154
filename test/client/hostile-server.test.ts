// The migration client against a service that misbehaves on purpose: redirects that would carry the
// API key and the data elsewhere, plain http across the network, terminal escapes in its texts, and
// reconciliation figures built to exhaust memory. The client must send nothing where it was not told
// to, print nothing a terminal would act on, and refuse what it cannot hold.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { serviceUrl } from '../../client/cli/connection';
import { readResults, runClient, summaryOf, writeLines } from './client.fixture';
import { isTokenRequest, startFakeService, tokenAnswer, type FakeAnswer, type FakeService } from './fake-service';

const API_KEY = 'sk-hostile-test-key-0123456789';
const SUPPLIER = 'HOSTILE_SUPPLIER';
let dir: string;
const services: FakeService[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-hostile-'));
});
afterAll(async () => {
  await Promise.all(services.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function fake(answer: Parameters<typeof startFakeService>[0]): Promise<FakeService> {
  const s = await startFakeService(answer);
  services.push(s);
  return s;
}

const notesFile = (name: string, count: number) =>
  writeLines(
    dir,
    `${name}.ndjson`,
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({ import_supplier: SUPPLIER, external_account_number: `ACC-${i}`, body: `Note ${i}` }),
    ),
  );

/** The notes endpoint's 201: one result per note sent. */
const notesCreated = (body: string): FakeAnswer => ({
  status: 201,
  body: (JSON.parse(body) as { notes: { body: string }[] }).notes.map((n) => ({
    created_at: '2024-01-01T00:00:00Z',
    body: n.body,
    status: 'NOTE_CREATION_SUCCESS',
  })),
});

/* eslint-disable no-control-regex -- these tests look for control characters on purpose */
/** What a terminal acts on: C0 but newline and tab, DEL and C1. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
/* eslint-enable no-control-regex */
/** Retitles the window, clears the screen, turns text red through the 8-bit CSI, and returns the cursor. */
const ESCAPES = '\u001b]0;owned\u0007\u001b[2J\u009b31mALL GOOD\r';

describe('redirects are never followed', () => {
  it('a 307 on obtainToken to another port stops the run naming where it pointed, and that server receives nothing', async () => {
    const elsewhere = await fake(() => ({ status: 200, body: {} }));
    const service = await fake(() => ({
      status: 307,
      headers: { location: `${elsewhere.baseUrl.replace('127.0.0.1', 'localhost')}/v1/graphql/` },
    }));

    const run = await runClient(service.baseUrl, API_KEY, [
      'send',
      'notes',
      notesFile('redirect-token', 3),
      '--runs-dir',
      dir,
      '--json',
    ]);

    expect(elsewhere.received).toEqual([]);
    expect(run.code).toBe(3);
    const port = new URL(elsewhere.baseUrl).port;
    expect(summaryOf(run).fatal).toContain(`307 redirecting to http://localhost:${port}`);
    expect(summaryOf(run)).toMatchObject({ succeeded: 0, failed: 0, unprocessed: 3 });
    // Refused at once: not retried as if the service were down.
    expect(service.received).toHaveLength(1);
  });

  it('a 307 on a batch sends that batch nowhere else and leaves its lines for resume', async () => {
    const elsewhere = await fake(() => ({ status: 201, body: [] }));
    const service = await fake((req) =>
      isTokenRequest(req) ? tokenAnswer() : { status: 307, headers: { location: `${elsewhere.baseUrl}/steal/` } },
    );

    const run = await runClient(service.baseUrl, API_KEY, [
      'send',
      'notes',
      notesFile('redirect-batch', 4),
      '--runs-dir',
      dir,
      '--concurrency',
      '1',
      '--json',
    ]);

    expect(elsewhere.received).toEqual([]);
    expect(run.code).toBe(3);
    expect(summaryOf(run).fatal).toContain(`redirecting to ${elsewhere.baseUrl}`);
    expect(summaryOf(run)).toMatchObject({ succeeded: 0, failed: 0, unprocessed: 4 });
    expect(service.received.filter((r) => r.path.startsWith('/v1/data-import/'))).toHaveLength(1);
  });

  it('reconcile refuses a 308 too', async () => {
    const elsewhere = await fake(() => ({ status: 200, body: '' }));
    const service = await fake((req, body) => {
      if (isTokenRequest(req)) return tokenAnswer();
      if (req.method === 'POST') return notesCreated(body);
      return { status: 308, headers: { location: `${elsewhere.baseUrl}/` } };
    });
    const sent = await runClient(service.baseUrl, API_KEY, [
      'send',
      'notes',
      notesFile('redirect-rec', 1),
      '--runs-dir',
      dir,
    ]);
    expect(sent.code).toBe(0);

    const run = await runClient(service.baseUrl, API_KEY, [
      'reconcile',
      '--supplier',
      SUPPLIER,
      path.join(dir, 'redirect-rec.ndjson'),
      '--runs-dir',
      dir,
      '--out',
      path.join(dir, 'redirect-report.csv'),
    ]);

    expect(elsewhere.received).toEqual([]);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`308 redirecting to ${elsewhere.baseUrl}`);
  });
});

describe('plain http', () => {
  it('is refused to another host unless --allow-insecure-http says so, and allowed to this machine', () => {
    const url = (u: string, allow?: boolean) => serviceUrl({ url: u, 'allow-insecure-http': allow });
    for (const remote of ['http://import.example.net', 'http://10.0.0.7:3000/', 'http://[2001:db8::1]/'])
      expect(() => url(remote)).toThrow(/--allow-insecure-http/);
    expect(url('http://import.example.net/', true)).toBe('http://import.example.net');
    for (const local of ['http://127.0.0.1:3000', 'http://127.1.2.3', 'http://localhost:80', 'http://[::1]:3000'])
      expect(url(local)).toBe(local);
    expect(url('https://import.example.net/')).toBe('https://import.example.net');
  });

  it('to another host ends the command with exit 2 before anything is sent', async () => {
    const run = await runClient('http://192.0.2.10:3000', API_KEY, [
      'send',
      'notes',
      notesFile('insecure', 1),
      '--runs-dir',
      dir,
    ]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('plain http');
  });
});

describe("the service's texts", () => {
  it('reach neither the terminal nor the result files with their control characters', async () => {
    const service = await fake((req) =>
      isTokenRequest(req)
        ? tokenAnswer()
        : {
            status: 400,
            body: {
              code: `invalid${ESCAPES}`,
              detail: ESCAPES,
              errors: [{ attr: 'notes.0.body', code: `blank${ESCAPES}`, detail: `Bad.${ESCAPES}` }],
            },
          },
    );
    const journal = path.join(dir, 'escapes');

    const run = await runClient(service.baseUrl, API_KEY, [
      'send',
      'notes',
      notesFile('escapes', 1),
      '--journal',
      journal,
    ]);

    expect(run.code).toBe(1);
    expect(run.stdout).toContain('failed 1');
    const raw = readFileSync(path.join(journal, 'failed.ndjson'), 'utf8');
    expect(CONTROL.test(raw)).toBe(false);
    // Escaped, not lost: the record still says exactly what the service said.
    expect(readResults(journal, 'failed')).toEqual([
      expect.objectContaining({ line: 1, code: `blank${ESCAPES}`, detail: `Bad.${ESCAPES}` }),
    ]);
    expect(CONTROL.test(run.stdout + run.stderr)).toBe(false);
  });

  it('in a refused sign-in or a refused reconciliation are printed without control characters', async () => {
    const refusing = await fake(() => ({
      status: 200,
      body: { data: null, errors: [{ message: 'no', extensions: { code: `bad_key${ESCAPES}` } }] },
    }));
    const journal = path.join(dir, 'refused');
    const refused = await runClient(refusing.baseUrl, API_KEY, [
      'send',
      'notes',
      notesFile('refused', 1),
      '--journal',
      journal,
    ]);
    expect(refused.code).toBe(3);
    expect(refused.stdout).toContain('stopped: the service refused the API key (bad_key');
    expect(CONTROL.test(refused.stdout + refused.stderr)).toBe(false);

    const forbidding = await fake((req) => (isTokenRequest(req) ? tokenAnswer() : { status: 403, body: ESCAPES }));
    const reconciled = await runClient(forbidding.baseUrl, API_KEY, [
      'reconcile',
      '--supplier',
      SUPPLIER,
      journal,
      '--out',
      path.join(dir, 'refused-report.csv'),
    ]);
    expect(reconciled.code).toBe(2);
    expect(reconciled.stderr).toContain('the service answered 403');
    expect(CONTROL.test(reconciled.stdout + reconciled.stderr)).toBe(false);
  });
});

describe('reconciliation figures', () => {
  it('"notes_count":"1e900000000" is refused naming the row and the figure, without exhausting memory', async () => {
    const rows = [
      { external_account_number: 'ACC-0', platform_account_number: 'P-0', notes_count: 1 },
      { external_account_number: 'ACC-1', platform_account_number: 'P-1', notes_count: '1e900000000' },
    ];
    const service = await fake((req, body) => {
      if (isTokenRequest(req)) return tokenAnswer();
      if (req.method === 'POST') return notesCreated(body);
      return {
        status: 200,
        headers: { 'content-type': 'application/x-ndjson' },
        body: rows.map((r) => JSON.stringify(r) + '\n').join(''),
      };
    });
    const file = notesFile('huge-figure', 2);
    const journal = path.join(dir, 'huge-figure');
    expect((await runClient(service.baseUrl, API_KEY, ['send', 'notes', file, '--journal', journal])).code).toBe(0);

    const run = await runClient(service.baseUrl, API_KEY, [
      'reconcile',
      '--supplier',
      SUPPLIER,
      journal,
      '--out',
      path.join(dir, 'huge-report.csv'),
    ]);

    expect(run.code).toBe(3);
    expect(run.stderr).toContain('reconciliation row 2 is refused: notes_count of account ACC-1');
    expect(run.stderr).toContain('"1e900000000"');
  });
});
