// Staff accounts. Usernames arrive already lower-cased by the schemas.
import type { DbClient } from '../platform/db';
import type { StaffRole } from '../generated/prisma/client';

const STAFF = {
  id: true,
  username: true,
  role: true,
  sessionGeneration: true,
  disabledAt: true,
  lastLoginAt: true,
  passwordChangedAt: true,
  createdAt: true,
} as const;

export async function findStaffByUsername(db: DbClient, username: string) {
  return db.staffUser.findUnique({ where: { username }, select: { ...STAFF, passwordHash: true } });
}

export async function findStaffById(db: DbClient, id: number) {
  return db.staffUser.findUnique({ where: { id }, select: STAFF });
}

export async function listStaff(db: DbClient) {
  return db.staffUser.findMany({ select: STAFF, orderBy: { username: 'asc' } });
}

/** Inserts the user unless the username is taken; the row, or undefined when it existed. */
export async function insertStaffIfAbsent(
  db: DbClient,
  u: { username: string; role: StaffRole; passwordHash: string },
) {
  const rows = await db.staffUser.createManyAndReturn({ data: [u], skipDuplicates: true, select: STAFF });
  return rows[0];
}

/** Every change that must end the user's sessions bumps the generation in the same statement. */
export async function updateStaffEndingSessions(
  db: DbClient,
  username: string,
  data: { disabledAt?: Date | null; passwordHash?: string; passwordChangedAt?: Date },
) {
  const { count } = await db.staffUser.updateMany({
    where: { username },
    data: { ...data, sessionGeneration: { increment: 1 } },
  });
  return count === 1;
}

export async function enableStaff(db: DbClient, username: string): Promise<boolean> {
  const { count } = await db.staffUser.updateMany({ where: { username }, data: { disabledAt: null } });
  return count === 1;
}

export async function recordStaffLogin(db: DbClient, id: number, at: Date): Promise<void> {
  await db.staffUser.update({ where: { id }, data: { lastLoginAt: at } });
}
