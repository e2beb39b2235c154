// A JSON apply carries at most MAX_JSON_ACCOUNTS accounts: a longer list (40,000 used to fail after
// 120 s with an expired transaction) is refused at once, changing nothing, with the commands that move
// the accounts to the streamed NDJSON form; those commands work as printed.
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyAccountFile } from '../../shared/admin/account-file.use-case';
import { applyJsonFile, MAX_JSON_ACCOUNTS } from '../../shared/admin/apply.use-case';
import { ValidationError } from '../../shared/platform/errors';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';

describe('admin apply of a JSON file with a large account list', () => {
  let t: TestDb;
  let dir: string;

  beforeAll(async () => {
    t = await openTestDb();
    dir = await mkdtemp(path.join(tmpdir(), "apply large 'json'-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await t.db.close();
  });

  it('is refused before anything is applied, naming the streamed form and the commands to get there', async () => {
    const code = `BIG_${uniqueSuffix()}`;
    const accounts = Array.from({ length: MAX_JSON_ACCOUNTS + 1 }, (_, i) => ({
      import_supplier: code,
      external_account_number: `EXT-${i}`,
      state: 'staged',
    }));
    const file = path.join(dir, 'migration.json');
    await writeFile(file, JSON.stringify({ suppliers: [{ code, document_root: `imports/${code}` }], accounts }));

    const err = await applyJsonFile(t.db, file).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    const refusal = err as ValidationError;
    expect(refusal.errors).toEqual([
      { attr: 'accounts', code: 'too_many_accounts_for_json', detail: expect.any(String) },
    ]);
    expect(refusal.message).toContain(
      `has ${MAX_JSON_ACCOUNTS + 1} accounts; a JSON file takes at most ${MAX_JSON_ACCOUNTS}`,
    );
    expect(refusal.message).toContain('Nothing was applied.');
    expect(await t.db.prisma.importSupplier.count({ where: { code } })).toBe(0);

    // The printed commands, run as printed (the folder's name has a space and a quote in it).
    const lines = refusal.message.split('\n');
    const split = lines.find((l) => l.trim().startsWith('node -e '))!.trim();
    const apply = lines.find((l) => l.includes('npm run --silent admin -- apply '))!.trim();
    execFileSync('sh', ['-c', split]);
    const ndjson = path.join(dir, 'migration.accounts.ndjson');
    expect(apply).toBe(`npm run --silent admin -- apply '${ndjson.replace(/'/g, `'\\''`)}'`);
    const written = (await readFile(ndjson, 'utf8')).trimEnd().split('\n');
    expect(written.map((l) => JSON.parse(l))).toEqual(accounts);

    // The streamed form takes them (the supplier first, as the rest of the JSON file).
    await writeFile(file, JSON.stringify({ suppliers: [{ code, document_root: `imports/${code}` }] }));
    await applyJsonFile(t.db, file);
    const report = await applyAccountFile(t.db, ndjson, 'ndjson');
    expect(report).toMatchObject({ accounts: MAX_JSON_ACCOUNTS + 1, created: MAX_JSON_ACCOUNTS + 1 });
  }, 120_000);

  it('a list within the limit is applied as before', async () => {
    const code = `SMALL_${uniqueSuffix()}`;
    const file = path.join(dir, `${code}.json`);
    const accounts = [{ import_supplier: code, external_account_number: 'EXT-1', state: 'staged' }];
    await writeFile(file, JSON.stringify({ suppliers: [{ code, document_root: `imports/${code}` }], accounts }));
    const report = await applyJsonFile(t.db, file);
    expect(report.accounts).toHaveLength(1);
  });
});
