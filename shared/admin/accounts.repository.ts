// Account import processes, accounts and statement periods as the platform team sets them up.
import type { DbClient } from '../platform/db';
import type { ImportState, ImportStatus } from '../generated/prisma/client';

const ref = (supplierCode: string, externalAccountNumber: string) => ({
  supplierCode_externalAccountNumber: { supplierCode, externalAccountNumber },
});

export async function findProcess(db: DbClient, supplierCode: string, externalAccountNumber: string) {
  return db.accountImportProcess.findUnique({
    where: ref(supplierCode, externalAccountNumber),
    select: { id: true, state: true, account: { select: { id: true, platformAccountNumber: true, createdAt: true } } },
  });
}

export async function findProcessDetail(db: DbClient, supplierCode: string, externalAccountNumber: string) {
  return db.accountImportProcess.findUnique({
    where: ref(supplierCode, externalAccountNumber),
    select: {
      supplierCode: true,
      externalAccountNumber: true,
      state: true,
      stagedAt: true,
      account: {
        select: {
          platformAccountNumber: true,
          createdAt: true,
          statementPeriods: { select: { startsOn: true, endsOn: true, isOpen: true }, orderBy: { startsOn: 'asc' } },
          _count: { select: { notes: true, transactions: true, statements: true, paymentInstructions: true } },
        },
      },
    },
  });
}

export async function listProcesses(db: DbClient, supplierCode: string, after: string | undefined, limit: number) {
  return db.accountImportProcess.findMany({
    where: { supplierCode, ...(after === undefined ? {} : { externalAccountNumber: { gt: after } }) },
    select: {
      externalAccountNumber: true,
      state: true,
      stagedAt: true,
      account: { select: { platformAccountNumber: true, createdAt: true } },
    },
    orderBy: { externalAccountNumber: 'asc' },
    take: limit,
  });
}

export async function upsertProcess(
  db: DbClient,
  supplierCode: string,
  externalAccountNumber: string,
  set: { state: ImportState; status: ImportStatus },
): Promise<number> {
  const row = await db.accountImportProcess.upsert({
    where: ref(supplierCode, externalAccountNumber),
    create: { supplierCode, externalAccountNumber, ...set },
    update: set,
    select: { id: true },
  });
  return row.id;
}

export async function isPlatformAccountNumberTaken(db: DbClient, platformAccountNumber: string): Promise<boolean> {
  return (await db.account.count({ where: { platformAccountNumber } })) > 0;
}

export async function insertAccount(
  db: DbClient,
  a: { processId: number; platformAccountNumber: string; createdAt: Date; stripeCustomerId: string | null },
): Promise<number> {
  const row = await db.account.create({ data: a, select: { id: true } });
  return row.id;
}

export async function recordStripeCustomer(db: DbClient, accountId: number, stripeCustomerId: string): Promise<void> {
  await db.account.update({ where: { id: accountId }, data: { stripeCustomerId } });
}

export async function findOpenStatementPeriod(db: DbClient, accountId: number) {
  return db.statementPeriod.findFirst({ where: { accountId, isOpen: true }, select: { id: true, startsOn: true } });
}

export async function openStatementPeriod(db: DbClient, accountId: number, startsOn: Date): Promise<void> {
  await db.statementPeriod.create({ data: { accountId, startsOn, isOpen: true } });
}

/** Closes the open period the day before `startsOn` and opens a new one from `startsOn`. */
export async function rollStatementPeriod(
  db: DbClient,
  periodId: number,
  accountId: number,
  startsOn: Date,
): Promise<void> {
  const dayBefore = new Date(startsOn.getTime() - 86_400_000);
  await db.statementPeriod.update({ where: { id: periodId }, data: { isOpen: false, endsOn: dayBefore } });
  await openStatementPeriod(db, accountId, startsOn);
}
