// What the client leaves on disk: journals and result files hold customer data, so only their owner
// may read them whatever the umask; and a broken CSV line is one failure record, not one per error
// the CSV parser met on it.
import { chmodSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readEntries } from '../../client/input-reader';
import { readResults, runClient, summaryOf, writeLines } from './client.fixture';
import { isTokenRequest, startFakeService, tokenAnswer, type FakeService } from './fake-service';

let dir: string;
let service: FakeService;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'data-import-files-'));
  // Stores every note: what is on disk is the point here, not the answers.
  service = await startFakeService((req, body) =>
    isTokenRequest(req)
      ? tokenAnswer()
      : {
          status: 201,
          body: (JSON.parse(body) as { notes: { body: string }[] }).notes.map((n) => ({
            created_at: '2024-01-01T00:00:00Z',
            body: n.body,
            status: 'NOTE_CREATION_SUCCESS',
          })),
        },
  );
});
afterAll(async () => {
  await service.close();
  rmSync(dir, { recursive: true, force: true });
});

const modeOf = (file: string) => statSync(file).mode & 0o777;

/** Every directory under (and including) `root` and every file in them, with its permission bits. */
function modesUnder(root: string): Record<string, number> {
  const modes: Record<string, number> = { '.': modeOf(root) };
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    modes[path.relative(root, full)] = modeOf(full);
  }
  return modes;
}

describe('with a umask of 0', () => {
  let umask: number;
  beforeAll(() => {
    umask = process.umask(0); // the client runs as a child process and inherits it
  });
  afterAll(() => process.umask(umask));

  it('a run creates its runs directory and journal owner-only (0700) and every file in it 0600; resume narrows older files', async () => {
    const file = writeLines(dir, 'notes.ndjson', [
      JSON.stringify({ import_supplier: 'S', external_account_number: 'A-1', body: 'kept private' }),
      'not json',
    ]);
    const runsDir = path.join(dir, 'new-parent', 'runs');

    const run = await runClient(service.baseUrl, 'key', ['send', 'notes', file, '--runs-dir', runsDir, '--json']);

    expect(run.code).toBe(1);
    const journal = summaryOf(run).journal as string;
    expect(modeOf(path.join(dir, 'new-parent'))).toBe(0o700);
    const modes = modesUnder(runsDir);
    const name = path.basename(journal);
    expect(modes).toEqual({
      '.': 0o700,
      [name]: 0o700,
      ...Object.fromEntries(
        ['run.json', 'journal.ndjson', 'succeeded.ndjson', 'differs.ndjson', 'failed.ndjson', 'unprocessed.ndjson'].map(
          (f) => [path.join(name, f), 0o600],
        ),
      ),
    });

    // A journal written by an older client, world-readable: resume leaves it owner-only.
    chmodSync(journal, 0o755);
    for (const f of readdirSync(journal)) chmodSync(path.join(journal, f), 0o644);
    expect((await runClient(service.baseUrl, 'key', ['resume', journal])).code).toBe(1);
    expect(Object.values(modesUnder(journal))).toEqual([0o700, ...readdirSync(journal).map(() => 0o600)]);
  });

  it('validate writes its failures owner-only too', async () => {
    const file = writeLines(dir, 'to-validate.ndjson', ['not json']);
    const journal = path.join(dir, 'validated');
    expect((await runClient(service.baseUrl, 'key', ['validate', 'notes', file, '--journal', journal])).code).toBe(1);
    expect(modesUnder(journal)).toEqual({ '.': 0o700, 'failed.ndjson': 0o600 });
  });
});

describe('a CSV line with many errors', () => {
  const csv = () =>
    writeLines(dir, 'broken.csv', [
      'import_supplier,external_account_number,body',
      'S,A-1,first',
      'S,A-2,a"b"c"d"e"f"g"h"i',
      'S,A-3,"x"yz,"q"r',
      'S,A-4,last',
    ]);

  it('is read as one failure per source line, the good lines around it as items', async () => {
    const entries = [];
    for await (const e of readEntries(csv(), 'csv')) entries.push(e);
    const byLine = entries.map((e) => [e.line, e.problem?.code ?? 'item']).sort((a, b) => Number(a[0]) - Number(b[0]));
    expect(byLine.filter(([line]) => line === 3)).toEqual([[3, 'parse_error']]);
    expect(new Set(entries.map((e) => e.line)).size).toBe(entries.length);
    expect(byLine[0]).toEqual([2, 'item']);
  });

  it('gives one record in failed.ndjson per broken line, in validate and in send', async () => {
    const file = csv();
    const validated = path.join(dir, 'validated-csv');
    const check = await runClient(service.baseUrl, 'key', ['validate', 'notes', file, '--journal', validated]);
    expect(check.code).toBe(1);
    const failedLines = (journal: string) => readResults(journal, 'failed').map((f) => f.line as number);
    const lines = failedLines(validated);
    expect(lines).toContain(3);
    expect(new Set(lines).size).toBe(lines.length);

    const sent = path.join(dir, 'sent-csv');
    const run = await runClient(service.baseUrl, 'key', ['send', 'notes', file, '--journal', sent, '--json']);
    expect(failedLines(sent).sort()).toEqual([...lines].sort());
    expect(summaryOf(run).failed).toBe(lines.length);
  });
});
