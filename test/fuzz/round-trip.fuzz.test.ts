// Valid payloads of every write endpoint, generated: each is answered 201 and stored exactly as sent
// (any script and emoji in text, every decimal digit, dates and datetimes as written).
import Decimal from 'decimal.js';
import fc from 'fast-check';
import { NOTES, PAYMENT_INSTRUCTIONS, STATEMENTS, TRANSACTIONS } from './endpoints';
import { fuzzOptions, startFuzzWorld, type FuzzWorld, FUZZ_TEST_TIMEOUT_MS } from './fuzz-world';
import {
  decimal,
  documentPath,
  formatDateTime,
  identifierText,
  isoDate,
  isoDateTime,
  nonBlankText,
} from './valid-values';

jest.setTimeout(FUZZ_TEST_TIMEOUT_MS);

const day = (d: Date | null) => d && d.toISOString().slice(0, 10);

describe('valid payloads round-trip', () => {
  let world: FuzzWorld;

  beforeAll(async () => {
    world = await startFuzzWorld();
  });
  afterAll(() => world.close());

  const envelope = (account: { external: string }) => ({
    import_supplier: world.tenant.supplier,
    external_account_number: account.external,
  });

  it('notes: stored as sent, each NOTE_CREATION_SUCCESS', async () => {
    const note = fc.record(
      {
        body: nonBlankText(1, 200),
        document_paths: fc.array(fc.record({ document_path: documentPath }), { minLength: 1, maxLength: 3 }),
        created_at: isoDateTime,
        is_pinned: fc.boolean(),
        external_id: identifierText(1, 40),
      },
      { requiredKeys: ['body'] },
    );
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(note, { minLength: 1, maxLength: 8, selector: (n) => n.body }), async (notes) => {
        const account = await world.account();
        const res = await world.post(NOTES.path, { ...envelope(account), notes });

        expect(res.status).toBe(201);
        expect(res.body.map((r: { status: string }) => r.status)).toEqual(notes.map(() => 'NOTE_CREATION_SUCCESS'));
        const stored = await world.app.db.prisma.note.findMany({
          where: { accountId: account.id },
          orderBy: { id: 'asc' },
        });
        expect(
          stored.map((s) => ({
            body: s.body,
            paths: (s.documents as { document_path: string }[]).map((d) => d.document_path),
            isPinned: s.isPinned,
            externalId: s.externalId,
            createdAt: formatDateTime(s.createdAt),
          })),
        ).toEqual(
          notes.map((n, i) => ({
            body: n.body,
            paths: (n.document_paths ?? []).map((d) => d.document_path),
            isPinned: n.is_pinned ?? false,
            externalId: n.external_id ?? null,
            createdAt: n.created_at ?? formatDateTime(stored[i]!.createdAt),
          })),
        );
      }),
      fuzzOptions(30),
    );
  });

  it('historical statements: stored as sent, the body echoes the request', async () => {
    const statement = fc
      .record({
        from: isoDate('2000-01-01', '2024-12-31'),
        days: fc.integer({ min: 0, max: 90 }),
        statement_id: identifierText(1, 60),
        issued_date: isoDate(),
        number: identifierText(1, 30),
        gross_amount: fc.integer({ min: -1e12, max: 1e12 }),
        statement_path: documentPath,
      })
      .map(({ from, days, ...s }) => ({
        ...s,
        bill_period_from_date: from,
        bill_period_to_date: new Date(Date.parse(from) + days * 86_400_000).toISOString().slice(0, 10),
      }));
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(statement, { minLength: 1, maxLength: 5, selector: (s) => s.statement_id }),
        async (statements) => {
          const account = await world.account();
          const res = await world.post(STATEMENTS.path, { ...envelope(account), statements });

          expect([200, 201]).toContain(res.status);
          expect(res.body.statements).toEqual(statements.map((s) => expect.objectContaining(s)));
          const stored = await world.app.db.prisma.historicalStatement.findMany({
            where: { accountId: account.id },
            orderBy: { id: 'asc' },
          });
          expect(
            stored.map((s) => ({
              statement_id: s.statementId,
              bill_period_from_date: day(s.billPeriodFromDate),
              bill_period_to_date: day(s.billPeriodToDate),
              issued_date: day(s.issuedDate),
              number: s.number,
              gross_amount: Number(s.grossAmount),
              statement_path: s.statementPath,
            })),
          ).toEqual(statements.map((s) => ({ ...s })));
        },
      ),
      fuzzOptions(30),
    );
  });

  it('transactions: every digit of every amount stored, text as sent, TRANSACTION_ADDED_TO_ACCOUNT each', async () => {
    const transaction = fc.oneof(
      fc.record({
        type: fc.constantFrom('CHARGE', 'CREDIT'),
        amount: decimal(10, 10),
        note: nonBlankText(1, 80),
        display_note: nonBlankText(1, 80),
        reason: nonBlankText(1, 30),
      }),
      fc.record({
        type: fc.constantFrom('PAYMENT', 'REPAYMENT'),
        amount: decimal(10, 10, { positive: true }),
        reference: identifierText(1, 60),
        note: nonBlankText(1, 80),
      }),
    );
    const asNumber = fc.boolean();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(transaction, isoDate('2019-10-01', '2024-12-31'), asNumber), { minLength: 1, maxLength: 6 }),
        async (items) => {
          const account = await world.account();
          const sent = items.map(([t, date], i) => ({ ...t, transaction_id: `T-${i}`, transaction_date: date }));
          // A JSON number only when a double holds it exactly (else the service rightly refuses it).
          const body = sent.map((t, i) =>
            items[i]![2] && new Decimal(t.amount).sd() <= 15 ? { ...t, amount: Number(t.amount) } : t,
          );
          const res = await world.post(TRANSACTIONS.path, { ...envelope(account), transactions: body });

          expect(res.status).toBe(201);
          expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(
            sent.map(() => 'TRANSACTION_ADDED_TO_ACCOUNT'),
          );
          const stored = await world.app.db.prisma.transaction.findMany({
            where: { accountId: account.id },
            orderBy: { id: 'asc' },
          });
          expect(
            stored.map((s) => ({
              id: s.transactionId,
              date: day(s.transactionDate),
              amount: new Decimal(s.amount.toString()).toFixed(),
              note: s.note,
              reference: s.reference,
            })),
          ).toEqual(
            sent.map((t) => ({
              id: t.transaction_id,
              date: t.transaction_date,
              amount: new Decimal(t.amount).toFixed(),
              note: t.note,
              reference: 'reference' in t ? t.reference : null,
            })),
          );
        },
      ),
      fuzzOptions(30),
    );
  });

  it('payment instructions: stored with the reference and options as sent', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.option(isoDate(), { nil: undefined }),
        fc.option(fc.boolean(), { nil: undefined }),
        async (validFrom, scheduled) => {
          const account = await world.account();
          const body = {
            ...PAYMENT_INSTRUCTIONS.valid(world, account),
            valid_from: validFrom,
            use_for_scheduled_payments: scheduled,
          } as Record<string, unknown>;

          const res = await world.post(PAYMENT_INSTRUCTIONS.path, body);

          expect(res.status).toBe(201);
          expect(res.body.reference).toBe(body.reference);
          const [stored] = await world.app.db.prisma.paymentInstruction.findMany({ where: { accountId: account.id } });
          expect(stored).toMatchObject({
            vendor: 'STRIPE',
            reference: body.reference,
            type: 'CARD',
            useForScheduledPayments: scheduled ?? null,
          });
          expect(day(stored!.validFrom)).toBe(validFrom ?? null);
        },
      ),
      fuzzOptions(15),
    );
  });
});
