import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { digest } from '../../shared/auth/secrets';
import { applyFile, applyJsonFile } from '../../shared/admin/apply.use-case';
import type { ApplyFileInput } from '../../shared/admin/apply.schemas';
import { revokeApiKey } from '../../shared/admin/organisations.use-cases';
import { AppError, ValidationError } from '../../shared/platform/errors';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';

describe('admin apply', () => {
  let t: TestDb;
  let dir: string;

  beforeAll(async () => {
    t = await openTestDb();
    dir = await mkdtemp(path.join(tmpdir(), 'admin-apply-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
    await t.db.close();
  });

  /** Names unique to one test, and a file using them like the README's example. */
  function fixture() {
    const s = uniqueSuffix();
    const names = {
      supplier: `ACME_${s}`,
      other: `OTHER_${s}`,
      extra: `NEW_${s}`,
      org: `acme-${s}`,
      keyed: `keyed-${s}`,
      number: `A-${s}`,
      root: `imports/acme-${s}`,
    };
    const apiKey = `key-${s}-${'k'.repeat(32)}`;
    const file: ApplyFileInput = {
      suppliers: [
        { code: names.supplier, status: 'Ongoing', document_root: names.root, send_emails: false },
        { code: names.other, status: 'Paused', document_root: `imports/other-${s}` },
      ],
      organisations: [
        { name: names.org, suppliers: [names.supplier] },
        { name: names.keyed, api_key: apiKey, suppliers: [names.supplier, names.other] },
      ],
      accounts: [
        { import_supplier: names.supplier, external_account_number: 'EXT-1', state: 'staged' },
        { import_supplier: names.supplier, external_account_number: 'EXT-2', state: 'in_progress' },
        {
          import_supplier: names.supplier,
          external_account_number: 'EXT-3',
          state: 'imported',
          platform_account_number: names.number,
          account_created_at: '2026-01-15T09:30:00Z',
          open_statement_from: '2026-11-01',
        },
        { import_supplier: names.supplier, external_account_number: 'EXT-4', state: 'imported' },
        { import_supplier: names.other, external_account_number: 'EXT-5', state: 'failed' },
      ],
    };
    return { names, apiKey, file };
  }

  /**
   * Every row the fixture's files can touch, found through its unique names (other test runs may use
   * the same database at the same time, so table-wide counts would not be stable).
   */
  async function databaseState(f: ReturnType<typeof fixture>) {
    const p = t.db.prisma;
    const codes = [f.names.supplier, f.names.other, f.names.extra];
    const [suppliers, organisations, processes] = await Promise.all([
      p.importSupplier.findMany({ where: { code: { in: codes } }, orderBy: { code: 'asc' } }),
      p.organisation.findMany({
        where: { name: { in: [f.names.org, f.names.keyed] } },
        include: {
          suppliers: { orderBy: { supplierCode: 'asc' } },
          apiKeys: { orderBy: { id: 'asc' } },
          refreshTokens: true,
        },
        orderBy: { name: 'asc' },
      }),
      p.accountImportProcess.findMany({
        where: { supplierCode: { in: codes } },
        include: { account: { include: { statementPeriods: { orderBy: { id: 'asc' } } } } },
        orderBy: [{ supplierCode: 'asc' }, { externalAccountNumber: 'asc' }],
      }),
    ]);
    return { suppliers, organisations, processes };
  }

  it('creates what the file describes, with generated values where optional fields are omitted', async () => {
    const f = fixture();
    const before = Date.now();
    const report = await applyFile(t.db, f.file);

    const state = await databaseState(f);
    expect(
      state.suppliers.map(({ code, status, documentRoot, sendEmails }) => ({ code, status, documentRoot, sendEmails })),
    ).toEqual([
      { code: f.names.supplier, status: 'Ongoing', documentRoot: f.names.root, sendEmails: false },
      {
        code: f.names.other,
        status: 'Paused',
        documentRoot: `imports/other-${f.names.supplier.slice(5)}`,
        sendEmails: false,
      },
    ]);
    const [org, keyed] = state.organisations;
    expect(org!.suppliers.map((s) => s.supplierCode)).toEqual([f.names.supplier]);
    expect(keyed!.suppliers.map((s) => s.supplierCode).sort()).toEqual([f.names.supplier, f.names.other].sort());
    expect(keyed!.apiKeys).toEqual([
      expect.objectContaining({ hash: digest(f.apiKey), prefix: f.apiKey.slice(0, 8), revokedAt: null }),
    ]);
    const generatedKey = report.organisations.find((o) => o.name === f.names.org)!.api_key!;
    expect(org!.apiKeys).toEqual([
      expect.objectContaining({ hash: digest(generatedKey), prefix: generatedKey.slice(0, 8) }),
    ]);

    const byNumber = Object.fromEntries(state.processes.map((p) => [p.externalAccountNumber, p]));
    expect(Object.values(byNumber).map((p) => [p.externalAccountNumber, p.state, p.account !== null])).toEqual([
      ['EXT-1', 'STAGED', false],
      ['EXT-2', 'IN_PROGRESS', false],
      ['EXT-3', 'IMPORTED', true],
      ['EXT-4', 'IMPORTED', true],
      ['EXT-5', 'FAILED', false],
    ]);
    expect(byNumber['EXT-3']!.account).toMatchObject({
      platformAccountNumber: f.names.number,
      createdAt: new Date('2026-01-15T09:30:00Z'),
      statementPeriods: [
        expect.objectContaining({ startsOn: new Date('2026-11-01T00:00:00Z'), endsOn: null, isOpen: true }),
      ],
    });
    const generated = byNumber['EXT-4']!.account!;
    expect(generated.platformAccountNumber).toMatch(/^A-[0-9A-F]{8}$/);
    expect(generated.createdAt.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(generated.statementPeriods).toEqual([
      expect.objectContaining({
        startsOn: new Date(`${generated.createdAt.toISOString().slice(0, 10)}T00:00:00Z`),
        isOpen: true,
      }),
    ]);
    expect(report.accounts.map((a) => a.platform_account_number)).toEqual([
      null,
      null,
      f.names.number,
      generated.platformAccountNumber,
      null,
    ]);
  });

  it('changes nothing at all when the same file is applied a second time, and prints no key then', async () => {
    const f = fixture();
    const first = await applyFile(t.db, f.file);
    const after = await databaseState(f);

    const second = await applyFile(t.db, f.file);

    expect(await databaseState(f)).toEqual(after);
    expect(first.organisations.map((o) => o.api_key !== undefined)).toEqual([true, false]);
    expect(second.organisations.map((o) => 'api_key' in o)).toEqual([false, false]);
    expect(second.accounts).toEqual(first.accounts);
  });

  it('generates and prints a key only for an organisation without an active key', async () => {
    const f = fixture();
    const first = await applyFile(t.db, f.file);
    const generated = first.organisations.find((o) => o.name === f.names.org)!;
    const keyRow = await t.db.prisma.apiKey.findUniqueOrThrow({ where: { hash: digest(generated.api_key!) } });

    await revokeApiKey(t.db, { id: keyRow.id });
    const afterRevoke = await applyFile(t.db, f.file);

    const replacement = afterRevoke.organisations.find((o) => o.name === f.names.org)!.api_key;
    expect(replacement).toEqual(expect.any(String));
    expect(replacement).not.toBe(generated.api_key);
    expect(afterRevoke.organisations.find((o) => o.name === f.names.keyed)).not.toHaveProperty('api_key');
    expect(await t.db.prisma.apiKey.count({ where: { organisationId: generated.id, revokedAt: null } })).toBe(1);
  });

  it('updates a changed supplier and moves the open statement period forward, closing the old one the day before', async () => {
    const f = fixture();
    await applyFile(t.db, f.file);
    const before = await databaseState(f);
    const changed = structuredClone(f.file);
    changed.suppliers![1]!.status = 'Complete';
    changed.accounts![2]!.open_statement_from = '2026-12-01';

    await applyFile(t.db, changed);

    const after = await databaseState(f);
    expect(after.suppliers[0]).toEqual(before.suppliers[0]);
    expect(after.suppliers[1]).toMatchObject({ status: 'Complete' });
    expect(after.suppliers[1]!.updatedAt.getTime()).toBeGreaterThan(before.suppliers[1]!.updatedAt.getTime());
    const periods = after.processes.find((p) => p.externalAccountNumber === 'EXT-3')!.account!.statementPeriods;
    expect(
      periods.map((p) => [
        p.startsOn.toISOString().slice(0, 10),
        p.endsOn?.toISOString().slice(0, 10) ?? null,
        p.isOpen,
      ]),
    ).toEqual([
      ['2026-11-01', '2026-11-30', false],
      ['2026-12-01', null, true],
    ]);
  });

  type Breaker = (file: ApplyFileInput, f: ReturnType<typeof fixture>) => void;
  const badFiles: [string, Breaker, string, string][] = [
    [
      'an account under an unknown supplier',
      (file) =>
        file.accounts!.push({ import_supplier: 'NO_SUCH_SUPPLIER', external_account_number: 'X', state: 'staged' }),
      'accounts.5.import_supplier',
      'import_supplier_not_found',
    ],
    [
      'an organisation assigned an unknown supplier',
      (file) => file.organisations![1]!.suppliers!.push('NO_SUCH_SUPPLIER'),
      'organisations.1.suppliers.2',
      'import_supplier_not_found',
    ],
    [
      'an unknown account state',
      (file) => ((file.accounts![1] as { state: string }).state = 'done'),
      'accounts.1.state',
      'invalid_choice',
    ],
    [
      'a date that does not exist',
      (file) => (file.accounts![2]!.open_statement_from = '2026-02-30'),
      'accounts.2.open_statement_from',
      'invalid',
    ],
    [
      'a datetime without a time',
      (file) => (file.accounts![2]!.account_created_at = '2026-01-15'),
      'accounts.2.account_created_at',
      'invalid',
    ],
    [
      'an imported account sent back to staged',
      (file) => (file.accounts![2]!.state = 'staged'),
      'accounts.2.state',
      'account_already_imported',
    ],
    [
      'a different platform number for an imported account',
      (file) => (file.accounts![2]!.platform_account_number = 'A-DIFFERENT'),
      'accounts.2.platform_account_number',
      'platform_account_number_mismatch',
    ],
    [
      'a different creation time for an imported account',
      (file) => (file.accounts![2]!.account_created_at = '2026-01-16T09:30:00Z'),
      'accounts.2.account_created_at',
      'account_created_at_mismatch',
    ],
    [
      'an open statement period moved backwards',
      (file) => (file.accounts![2]!.open_statement_from = '2026-10-01'),
      'accounts.2.open_statement_from',
      'statement_period_not_after_open_period',
    ],
    [
      "a new account taking another account's platform number",
      (file, f) =>
        file.accounts!.push({
          import_supplier: f.names.supplier,
          external_account_number: 'EXT-9',
          state: 'imported',
          platform_account_number: f.names.number,
        }),
      'accounts.5.platform_account_number',
      'platform_account_number_in_use',
    ],
    [
      'import-only fields on a staged account',
      (file) => (file.accounts![0]!.platform_account_number = 'A-1'),
      'accounts.0.platform_account_number',
      'only_for_imported_accounts',
    ],
    [
      'an API key shorter than 32 characters',
      (file) => (file.organisations![1]!.api_key = 'short-key'),
      'organisations.1.api_key',
      'min_length',
    ],
    [
      "another organisation's API key",
      (file, f) => (file.organisations![0]!.api_key = f.apiKey),
      'organisations.0.api_key',
      'api_key_in_use',
    ],
    ['a supplier code unusable in a URL', (file) => (file.suppliers![1]!.code = 'A/B'), 'suppliers.1.code', 'invalid'],
    [
      'an absolute document root',
      (file) => (file.suppliers![0]!.document_root = '/etc'),
      'suppliers.0.document_root',
      'invalid_document_path',
    ],
    [
      'a Stripe customer on a staged account',
      (file) => (file.accounts![0]!.stripe_customer = 'cus_A1'),
      'accounts.0.stripe_customer',
      'only_for_imported_accounts',
    ],
    [
      'an account number with a leading space, which the API could never address',
      (file, f) =>
        file.accounts!.push({ import_supplier: f.names.supplier, external_account_number: ' EXT-9', state: 'staged' }),
      'accounts.5.external_account_number',
      'invalid',
    ],
    [
      'a platform account number with a trailing space',
      (file, f) =>
        file.accounts!.push({
          import_supplier: f.names.supplier,
          external_account_number: 'EXT-9',
          state: 'imported',
          platform_account_number: 'A-9 ',
        }),
      'accounts.5.platform_account_number',
      'invalid',
    ],
    [
      'a Stripe customer id of the wrong shape',
      (file) => (file.accounts![0]!.stripe_customer = 'pm_A1'),
      'accounts.0.stripe_customer',
      'invalid',
    ],
  ];

  it.each(badFiles)(
    'refuses a file with %s, naming the field, and changes nothing',
    async (_label, breakIt, attr, code) => {
      const f = fixture();
      await applyFile(t.db, f.file);
      const before = await databaseState(f);
      // Valid changes ahead of the bad item prove the whole file is one transaction.
      const bad = structuredClone(f.file);
      bad.suppliers![0]!.send_emails = true;
      bad.suppliers!.push({ code: f.names.extra, document_root: `imports/${f.names.extra}` });
      bad.accounts![0]!.state = 'in_progress';
      breakIt(bad, f);

      const error = await applyFile(t.db, bad).catch((err: unknown) => err);

      expect(error).toBeInstanceOf(ValidationError);
      expect((error as ValidationError).errors).toContainEqual({ attr, code, detail: expect.any(String) });
      expect(await databaseState(f)).toEqual(before);
    },
  );

  describe('products', () => {
    const ratesOf = (code: string) =>
      t.db.prisma.productRate.findMany({
        where: { productCode: code },
        select: { id: true, rateBand: true, pricePerUnit: true, validFrom: true, validTo: true },
        orderBy: { id: 'asc' },
      });
    const rate = (rate_band: string, price_per_unit: number | string, valid_from: string, valid_to?: string) => ({
      rate_band,
      price_per_unit,
      valid_from,
      ...(valid_to ? { valid_to } : {}),
    });

    it('creates a product with its rates, leaves them untouched on a second apply, and replaces them when the list changes', async () => {
      const code = `P-${uniqueSuffix()}`;
      const first = {
        products: [
          { code, rates: [rate('DAY', 11, '2019-01-01', '2020-01-01'), rate('DAY', '12.1234567', '2020-01-01')] },
        ],
      };

      expect((await applyFile(t.db, first)).products).toEqual([code]);
      const created = await ratesOf(code);
      expect(
        created.map((r) => [
          r.rateBand,
          r.pricePerUnit.toFixed(),
          r.validFrom.toISOString().slice(0, 10),
          r.validTo?.toISOString().slice(0, 10) ?? null,
        ]),
      ).toEqual([
        ['DAY', '11', '2019-01-01', '2020-01-01'],
        ['DAY', '12.1234567', '2020-01-01', null],
      ]);
      await applyFile(t.db, first);
      expect(await ratesOf(code)).toEqual(created);

      await applyFile(t.db, { products: [{ code, rates: [rate('NIGHT', '0.5', '2019-01-01')] }] });
      expect((await ratesOf(code)).map((r) => r.rateBand)).toEqual(['NIGHT']);
    });

    it.each<[string, unknown[], string, string]>([
      [
        'overlapping rates of one band',
        [rate('DAY', 1, '2019-01-01', '2019-06-01'), rate('DAY', 2, '2019-05-01')],
        'products.0.rates.1',
        'overlapping_rates',
      ],
      [
        'a valid_to not after valid_from',
        [rate('DAY', 1, '2019-01-01', '2019-01-01')],
        'products.0.rates.0.valid_to',
        'start_date_later_than_end_date',
      ],
      [
        'a price with more than 7 places',
        [rate('DAY', '1.12345678', '2019-01-01')],
        'products.0.rates.0.price_per_unit',
        'max_decimal_places',
      ],
      ['an unknown field', [{ ...rate('DAY', 1, '2019-01-01'), currency: 'GBP' }], 'products.0.rates.0', 'invalid'],
    ])('refuses %s and stores no product', async (_label, rates, attr, code) => {
      const product = `P-${uniqueSuffix()}`;
      const error = await applyFile(t.db, { products: [{ code: product, rates }] }).catch((err: unknown) => err);
      expect((error as ValidationError).errors).toContainEqual({ attr, code, detail: expect.any(String) });
      expect(await t.db.prisma.product.count({ where: { code: product } })).toBe(0);
    });
  });

  it('refuses a revoked API key for its own organisation', async () => {
    const f = fixture();
    await applyFile(t.db, f.file);
    const key = await t.db.prisma.apiKey.findUniqueOrThrow({ where: { hash: digest(f.apiKey) } });
    await revokeApiKey(t.db, { id: key.id });
    const before = await databaseState(f);

    const error = await applyFile(t.db, f.file).catch((err: unknown) => err);

    expect((error as ValidationError).errors).toEqual([
      { attr: 'organisations.1.api_key', code: 'api_key_revoked', detail: expect.any(String) },
    ]);
    expect(await databaseState(f)).toEqual(before);
  });

  it('refuses a file that is not JSON with parse_error naming the file, and one that cannot be read with file_not_found', async () => {
    const f = fixture();
    const file = path.join(dir, 'broken.json');
    await writeFile(file, JSON.stringify(f.file).slice(0, -2));
    const before = await databaseState(f);

    const notJson = await applyJsonFile(t.db, file).catch((err: unknown) => err);
    const missing = await applyJsonFile(t.db, path.join(dir, 'missing.json')).catch((err: unknown) => err);

    expect(notJson).toBeInstanceOf(ValidationError);
    expect((notJson as ValidationError).errors).toEqual([
      { attr: 'non_field_errors', code: 'parse_error', detail: expect.stringContaining(file) },
    ]);
    expect(missing).toBeInstanceOf(AppError);
    expect((missing as AppError).code).toBe('file_not_found');
    expect(await databaseState(f)).toEqual(before);
  });

  it('applies a file read from disk exactly as the same object', async () => {
    const f = fixture();
    const file = path.join(dir, `${f.names.supplier}.json`);
    await writeFile(file, JSON.stringify(f.file));
    const report = await applyJsonFile(t.db, file);
    expect(report.suppliers).toEqual([f.names.supplier, f.names.other]);
    expect((await databaseState(f)).processes).toHaveLength(5);
  });
});
