// Each command of the client owns its options: an option of another command is a usage error naming
// the command, --help shows that command's options with the defaults the code uses, and reconcile
// fetches under the same retry policy as a batch (Retry-After honoured, --retry-deadline kept).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runClient, writeLines } from './client.fixture';
import { isTokenRequest, startFakeService, tokenAnswer, type FakeAnswer, type FakeService } from './fake-service';

const API_KEY = 'sk-commands-test-key-0123456789';
const SUPPLIER = 'COMMANDS_SUPPLIER';
let dir: string;
const services: FakeService[] = [];

beforeAll(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-commands-'));
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

const note = (i: number) =>
  JSON.stringify({ import_supplier: SUPPLIER, external_account_number: `ACC-${i}`, body: `Note ${i}` });

/** The notes endpoint's 201: one result per note sent. */
const notesCreated = (body: string): FakeAnswer => ({
  status: 201,
  body: (JSON.parse(body) as { notes: { body: string }[] }).notes.map((n) => ({
    created_at: '2024-01-01T00:00:00Z',
    body: n.body,
    status: 'NOTE_CREATION_SUCCESS',
  })),
});

describe('an option of another command', () => {
  it('is a usage error naming the command, and nothing is written or sent', async () => {
    const service = await fake(() => ({ status: 500 }));
    const file = writeLines(dir, 'foreign.ndjson', [note(0)]);
    const cases = [
      { args: ['validate', 'notes', file, '--batch', '5'], command: 'validate', option: '--batch' },
      { args: ['send', 'notes', file, '--supplier', SUPPLIER], command: 'send', option: '--supplier' },
      { args: ['resume', '--latest', '--format', 'csv'], command: 'resume', option: '--format' },
      { args: ['reconcile', '--supplier', SUPPLIER, file, '--out', 'r.csv', '--latest'], command: 'reconcile' },
    ];
    for (const { args, command, option = '--latest' } of cases) {
      const journal = path.join(dir, `foreign-${command}`);
      const run = await runClient(service.baseUrl, API_KEY, [...args, '--journal', journal]);
      expect([command, run.code]).toEqual([command, 2]);
      expect(run.stderr).toContain(`${command} takes no option ${option}`);
      expect(run.stderr).toContain(`usage: data-import-client ${command} `);
      expect(existsSync(journal)).toBe(false);
    }
    expect(service.received).toEqual([]);
  });
});

describe('a CSV whose header lacks a column every line needs', () => {
  it('is refused naming the columns before anything is sent or journalled (exit 2)', async () => {
    const service = await fake(() => ({ status: 500 }));
    const file = writeLines(dir, 'no-amount.csv', [
      'import_supplier,external_account_number,transaction_id,transaction_date,kind',
      `${SUPPLIER},ACC-1,T-1,2024-01-01,CHARGE`,
    ]);
    const journal = path.join(dir, 'no-amount');

    const run = await runClient(service.baseUrl, API_KEY, ['send', 'transactions', file, '--journal', journal]);

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('the CSV header has no amount, type column, which every transactions line needs');
    expect(existsSync(journal)).toBe(false);
    expect(service.received).toEqual([]);

    const instructions = writeLines(dir, 'no-reference.csv', [
      'import_supplier,external_account_number,vendor,type',
      `${SUPPLIER},ACC-1,STRIPE,CARD`,
    ]);
    const refused = await runClient(service.baseUrl, API_KEY, [
      'send',
      'payment-instructions',
      instructions,
      '--runs-dir',
      dir,
    ]);
    expect(refused.stderr).toContain('has no reference or instruction_reference column');
    expect(service.received).toEqual([]);
  });
});

describe('--help', () => {
  it("lists the command's own options with the defaults the run uses, and no other command's", async () => {
    const run = await runClient('', '', ['send', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^usage: data-import-client send <kind> <file>/);
    expect(run.stdout).toMatch(/--batch N +items per request \(default 100; 1 to 1000\)/);
    expect(run.stdout).toMatch(/--concurrency N +requests in flight at once \(default 8; 1 to 64\)/);
    expect(run.stdout).not.toMatch(/^ +--supplier/m);
    expect(run.stdout).not.toMatch(/^ +--latest/m);

    const service = await fake((req, body) => (isTokenRequest(req) ? tokenAnswer() : notesCreated(body)));
    const journal = path.join(dir, 'defaults');
    const file = writeLines(dir, 'defaults.ndjson', [note(0)]);
    expect((await runClient(service.baseUrl, API_KEY, ['send', 'notes', file, '--journal', journal])).code).toBe(0);
    const meta = JSON.parse(readFileSync(path.join(journal, 'run.json'), 'utf8')) as Record<string, unknown>;
    expect({ batch: meta.batch, concurrency: meta.concurrency }).toEqual({ batch: 100, concurrency: 8 });
  });

  it('of reconcile, asked as `help reconcile` too, lists its own options', async () => {
    for (const args of [
      ['reconcile', '--help'],
      ['help', 'reconcile'],
      ['reconcile', '-h'],
    ]) {
      const run = await runClient('', '', args);
      expect([args.join(' '), run.code]).toEqual([args.join(' '), 0]);
      expect(run.stdout).toMatch(/^usage: data-import-client reconcile --supplier CODE --out FILE/);
      expect(run.stdout).toMatch(/--retry-deadline SECONDS +.*\(default 600; 0 to 604800\)/);
      expect(run.stdout).not.toMatch(/^ +--batch/m);
    }
  });
});

describe('reconcile', () => {
  /** A service whose reconciliation endpoint first answers 503 with `retryAfter`, then its rows. */
  async function busyService(retryAfter: string, busyTimes: number) {
    const gets: number[] = [];
    const service = await fake((req, body) => {
      if (isTokenRequest(req)) return tokenAnswer();
      if (req.method === 'POST') return notesCreated(body);
      gets.push(Date.now());
      if (gets.length <= busyTimes) return { status: 503, headers: { 'retry-after': retryAfter }, body: {} };
      const row = { external_account_number: 'ACC-0', platform_account_number: 'P-0', notes_count: 1 };
      return { status: 200, headers: { 'content-type': 'application/x-ndjson' }, body: JSON.stringify(row) + '\n' };
    });
    return { service, gets };
  }

  async function sentJournal(service: FakeService, name: string): Promise<string> {
    const journal = path.join(dir, name);
    const file = writeLines(dir, `${name}.ndjson`, [note(0)]);
    expect((await runClient(service.baseUrl, API_KEY, ['send', 'notes', file, '--journal', journal])).code).toBe(0);
    return journal;
  }

  const reconcile = (service: FakeService, journal: string, ...more: string[]) =>
    runClient(service.baseUrl, API_KEY, [
      'reconcile',
      '--supplier',
      SUPPLIER,
      journal,
      '--out',
      `${journal}.csv`,
      ...more,
    ]);

  it('waits as long as Retry-After asks before trying the reconciliation again', async () => {
    const { service, gets } = await busyService('2', 1);
    const journal = await sentJournal(service, 'retry-after');

    const run = await reconcile(service, journal);

    expect(run.code).toBe(0);
    expect(gets).toHaveLength(2);
    expect(gets[1]! - gets[0]!).toBeGreaterThanOrEqual(1950);
  });

  it('gives up at --retry-deadline when Retry-After asks for longer, without asking again', async () => {
    const { service, gets } = await busyService('3600', 1000);
    const journal = await sentJournal(service, 'retry-deadline');

    const run = await reconcile(service, journal, '--retry-deadline', '5');

    expect(run.code).toBe(2);
    expect(run.stderr).toContain('did not answer: still 503 at the retry deadline');
    expect(gets).toHaveLength(1);
  });
});
