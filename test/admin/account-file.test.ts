// Streamed account files (NDJSON, CSV) applied in chunks: what a chunk commits, what a failure half-way
// leaves behind, and how a re-run continues.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { applyAccountFile } from '../../shared/admin/account-file.use-case';
import { applyFile } from '../../shared/admin/apply.use-case';
import { ValidationError } from '../../shared/platform/errors';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';

describe('admin apply of NDJSON and CSV account files', () => {
  let t: TestDb;
  let dir: string;

  beforeAll(async () => {
    t = await openTestDb();
    dir = await mkdtemp(path.join(tmpdir(), 'account-file-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await t.db.close();
  });

  async function supplier(): Promise<string> {
    const code = `FILE_${uniqueSuffix()}`;
    await applyFile(t.db, { suppliers: [{ code, document_root: `imports/${code}` }] });
    return code;
  }
  async function file(name: string, lines: string[]): Promise<string> {
    const p = path.join(dir, `${uniqueSuffix()}-${name}`);
    await writeFile(p, `${lines.join('\n')}\n`);
    return p;
  }
  const ndjson = (records: object[]) => records.map((r) => JSON.stringify(r));
  const states = async (code: string) =>
    Object.fromEntries(
      (
        await t.db.prisma.accountImportProcess.findMany({
          where: { supplierCode: code },
          select: { externalAccountNumber: true, state: true },
        })
      ).map((p) => [p.externalAccountNumber, p.state]),
    );

  it('creates accounts chunk by chunk with a progress call per chunk, and a second run changes nothing', async () => {
    const code = await supplier();
    const records = Array.from({ length: 7 }, (_, i) => ({
      import_supplier: code,
      external_account_number: `E-${i}`,
      state: i % 2 ? 'staged' : 'imported',
      ...(i % 2 ? {} : { open_statement_from: '2026-11-01' }),
    }));
    const p = await file('a.ndjson', ndjson(records));
    const progress: number[] = [];

    const first = await applyAccountFile(t.db, p, 'ndjson', {
      chunkSize: 3,
      onChunk: (_r, line) => progress.push(line),
    });
    const again = await applyAccountFile(t.db, p, 'ndjson', { chunkSize: 3 });

    expect(progress).toEqual([3, 6, 7]);
    expect(first).toMatchObject({ accounts: 7, created: 7, updated: 0, unchanged: 0, chunks: 3 });
    expect(again).toMatchObject({ accounts: 7, created: 0, updated: 0, unchanged: 7 });
    expect(await states(code)).toEqual({
      'E-0': 'IMPORTED',
      'E-1': 'STAGED',
      'E-2': 'IMPORTED',
      'E-3': 'STAGED',
      'E-4': 'IMPORTED',
      'E-5': 'STAGED',
      'E-6': 'IMPORTED',
    });
    const periods = await t.db.prisma.statementPeriod.findMany({
      where: { account: { process: { supplierCode: code } } },
    });
    expect(periods.map((s) => [s.startsOn.toISOString().slice(0, 10), s.isOpen])).toEqual(
      Array(4).fill(['2026-11-01', true]),
    );
  });

  it('on a bad line keeps the chunks before it, commits nothing of its chunk, and a fixed re-run skips what was committed', async () => {
    const code = await supplier();
    const line = (i: number, state = 'staged') =>
      JSON.stringify({ import_supplier: code, external_account_number: `E-${i}`, state });
    const broken = await file('b.ndjson', [line(1), line(2), line(3), line(4), line(5, 'gone'), line(6), line(7)]);

    const error = await applyAccountFile(t.db, broken, 'ndjson', { chunkSize: 3 }).catch((err: unknown) => err);

    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).errors).toEqual([
      { attr: 'line 5.state', code: 'invalid_choice', detail: expect.any(String) },
    ]);
    expect(Object.keys(await states(code)).sort()).toEqual(['E-1', 'E-2', 'E-3']);

    const fixed = await file('c.ndjson', [line(1), line(2), line(3), line(4), line(5), line(6), line(7)]);
    const rerun = await applyAccountFile(t.db, fixed, 'ndjson', { chunkSize: 3 });
    expect(rerun).toMatchObject({ accounts: 7, created: 4, unchanged: 3 });
    expect(Object.keys(await states(code))).toHaveLength(7);
  });

  it('reads CSV with a header, empty cells as absent fields, and applies the one-account rules in file order', async () => {
    const code = await supplier();
    await applyFile(t.db, {
      accounts: [
        { import_supplier: code, external_account_number: 'OLD', state: 'imported', open_statement_from: '2026-01-01' },
      ],
    });
    const csv = await file('d.csv', [
      'import_supplier,external_account_number,state,platform_account_number,open_statement_from',
      `${code},A,staged,,`,
      `${code},A,imported,,2026-02-01`,
      `${code},OLD,imported,,2026-03-01`,
      `${code},"B, quoted",in_progress,,`,
    ]);

    const report = await applyAccountFile(t.db, csv, 'csv');

    expect(report).toMatchObject({ accounts: 4 });
    expect(await states(code)).toEqual({ A: 'IMPORTED', OLD: 'IMPORTED', 'B, quoted': 'IN_PROGRESS' });
    const old = await t.db.prisma.statementPeriod.findMany({
      where: { account: { process: { supplierCode: code, externalAccountNumber: 'OLD' } } },
      orderBy: { startsOn: 'asc' },
    });
    expect(
      old.map((s) => [s.startsOn.toISOString().slice(0, 10), s.endsOn?.toISOString().slice(0, 10) ?? null, s.isOpen]),
    ).toEqual([
      ['2026-01-01', '2026-02-28', false],
      ['2026-03-01', null, true],
    ]);
  });

  it.each<[string, (code: string) => object[], string, string]>([
    [
      'an unknown supplier',
      () => [{ import_supplier: 'NO_SUCH', external_account_number: 'X', state: 'staged' }],
      'line 1.import_supplier',
      'import_supplier_not_found',
    ],
    [
      'a platform account number used twice',
      (code) =>
        [1, 2].map((i) => ({
          import_supplier: code,
          external_account_number: `N-${i}`,
          state: 'imported',
          platform_account_number: `A-DUP-${code}`,
        })),
      'line 2.platform_account_number',
      'platform_account_number_in_use',
    ],
    [
      'an imported-only field on a staged account',
      (code) => [
        { import_supplier: code, external_account_number: 'S', state: 'staged', open_statement_from: '2026-01-01' },
      ],
      'line 1.open_statement_from',
      'only_for_imported_accounts',
    ],
    [
      'a Stripe customer on a staged account',
      (code) => [{ import_supplier: code, external_account_number: 'S', state: 'staged', stripe_customer: 'cus_S1' }],
      'line 1.stripe_customer',
      'only_for_imported_accounts',
    ],
  ])('refuses %s naming the line, and commits nothing of its chunk', async (_label, records, attr, code) => {
    const sup = await supplier();
    const error = await applyAccountFile(t.db, await file('e.ndjson', ndjson(records(sup))), 'ndjson').catch(
      (err: unknown) => err,
    );
    expect((error as ValidationError).errors).toContainEqual({ attr, code, detail: expect.any(String) });
    expect(await states(sup)).toEqual({});
  });

  it.each(['ndjson', 'csv'] as const)(
    'records stripe_customer from %s as the JSON format does, on creation and when a later file changes it',
    async (format) => {
      const viaJson = await supplier();
      const viaFile = await supplier();
      const rounds: { e: string; customer?: string }[][] = [
        [{ e: 'A', customer: 'cus_A1' }, { e: 'B' }, { e: 'C', customer: 'cus_C1' }],
        // A corrected, B recorded later, C's line without one leaves it as it is.
        [{ e: 'A', customer: 'cus_A2' }, { e: 'B', customer: 'cus_B1' }, { e: 'C' }],
      ];
      const recorded = async (code: string) =>
        Object.fromEntries(
          (
            await t.db.prisma.account.findMany({
              where: { process: { supplierCode: code } },
              select: { stripeCustomerId: true, process: { select: { externalAccountNumber: true } } },
            })
          ).map((a) => [a.process.externalAccountNumber, a.stripeCustomerId]),
        );
      for (const round of rounds) {
        const record = (code: string, r: (typeof round)[number]) => ({
          import_supplier: code,
          external_account_number: r.e,
          state: 'imported' as const,
          ...(r.customer ? { stripe_customer: r.customer } : {}),
        });
        await applyFile(t.db, { accounts: round.map((r) => record(viaJson, r)) });
        const lines =
          format === 'ndjson'
            ? ndjson(round.map((r) => record(viaFile, r)))
            : [
                'import_supplier,external_account_number,state,stripe_customer',
                ...round.map((r) => `${viaFile},${r.e},imported,${r.customer ?? ''}`),
              ];
        await applyAccountFile(t.db, await file(`s.${format}`, lines), format);
        expect(await recorded(viaFile)).toEqual(await recorded(viaJson));
      }
      expect(await recorded(viaFile)).toEqual({ A: 'cus_A2', B: 'cus_B1', C: 'cus_C1' });
    },
  );

  it('gives every account the state of the account command, refusing a line that says another', async () => {
    const code = await supplier();
    const csv = await file('f.csv', ['import_supplier,external_account_number', `${code},I-1`, `${code},I-2`]);
    expect(await applyAccountFile(t.db, csv, 'csv', { state: 'imported' })).toMatchObject({ created: 2 });
    expect(await states(code)).toEqual({ 'I-1': 'IMPORTED', 'I-2': 'IMPORTED' });

    const other = await file(
      'g.ndjson',
      ndjson([{ import_supplier: code, external_account_number: 'I-3', state: 'staged' }]),
    );
    const error = await applyAccountFile(t.db, other, 'ndjson', { state: 'imported' }).catch((err: unknown) => err);
    expect((error as ValidationError).errors).toContainEqual({
      attr: 'line 1.state',
      code: 'invalid_choice',
      detail: expect.any(String),
    });
  });

  it('names a line that is not JSON', async () => {
    const code = await supplier();
    const p = await file('h.ndjson', [
      JSON.stringify({ import_supplier: code, external_account_number: 'J', state: 'staged' }),
      '{not json',
    ]);
    const error = await applyAccountFile(t.db, p, 'ndjson').catch((err: unknown) => err);
    expect((error as ValidationError).errors).toEqual([
      { attr: 'line 2', code: 'parse_error', detail: expect.any(String) },
    ]);
  });

  it('refreshes the statistics of the tables it filled, so later plans are not costed on empty tables', async () => {
    const analyses = async () =>
      Number(
        (
          await t.db.pool.query<{ n: string }>(
            `SELECT analyze_count AS n FROM pg_stat_user_tables WHERE relname = 'accounts'`,
          )
        ).rows[0]!.n,
      );
    const code = await supplier();
    const before = await analyses();

    await applyAccountFile(
      t.db,
      await file('s.ndjson', ndjson([{ import_supplier: code, external_account_number: 'S-1', state: 'staged' }])),
      'ndjson',
    );

    expect(await analyses()).toBeGreaterThan(before);
  });
});
