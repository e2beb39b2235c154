// Staff accounts (operators and support staff) as the admin CLI manages them, and sign-in as the
// staff pages use it. A generated password is returned once, by the command that set it; only its
// scrypt hash is stored. Disabling a user or changing a password ends every session the user has.
import type { Database, DbClient } from '../platform/db';
import { ConflictError, NotFoundError } from '../platform/errors';
import { formatDateTime } from '../platform/fields';
import { parseOrThrow } from '../platform/validation';
import { decoyHash, generatePassword, hashPassword, verifyPassword } from './password';
import * as repo from './staff.repository';
import {
  SignInForm,
  StaffCreate,
  StaffRef,
  StaffSetPassword,
  StaffUsername,
  type StaffRoleName,
} from './staff.schemas';

type StaffRow = NonNullable<Awaited<ReturnType<typeof repo.findStaffById>>>;

/** Who a staff session belongs to; `generation` must still match the user's for the session to live. */
export interface StaffPrincipal {
  id: number;
  username: string;
  role: StaffRoleName;
  generation: number;
}

function staffView(u: StaffRow) {
  return {
    username: u.username,
    role: u.role,
    status: u.disabledAt ? 'disabled' : 'active',
    created_at: formatDateTime(u.createdAt),
    password_changed_at: formatDateTime(u.passwordChangedAt),
    last_login_at: u.lastLoginAt ? formatDateTime(u.lastLoginAt) : null,
  };
}

async function findStaff(db: DbClient, username: string): Promise<StaffRow> {
  const user = await repo.findStaffByUsername(db, username);
  if (!user) throw new NotFoundError('staff_user_not_found', `No staff user named "${username}".`);
  return user;
}

/** The password to set: the one given, or a generated one that the caller prints this once. */
function choosePassword(given: string | undefined): { password: string; generated?: string } {
  if (given !== undefined) return { password: given };
  const generated = generatePassword();
  return { password: generated, generated };
}

export async function createStaffUser(db: Database, input: unknown) {
  const u = parseOrThrow(StaffCreate, input);
  const { password, generated } = choosePassword(u.password);
  const row = await repo.insertStaffIfAbsent(db.prisma, {
    username: u.username,
    role: u.role,
    passwordHash: await hashPassword(password),
  });
  if (!row) throw new ConflictError('staff_user_already_exists', `Staff user "${u.username}" already exists.`);
  return { ...staffView(row), ...(generated && { password: generated }) };
}

/** Disabling twice keeps the first time; either way every session of the user ends. */
export async function disableStaffUser(db: Database, input: unknown, now: Date = new Date()) {
  const { username } = parseOrThrow(StaffRef, input);
  const user = await findStaff(db.prisma, username);
  await repo.updateStaffEndingSessions(db.prisma, username, { disabledAt: user.disabledAt ?? now });
  return staffView(await findStaff(db.prisma, username));
}

export async function enableStaffUser(db: Database, input: unknown) {
  const { username } = parseOrThrow(StaffRef, input);
  await findStaff(db.prisma, username);
  await repo.enableStaff(db.prisma, username);
  return staffView(await findStaff(db.prisma, username));
}

export async function setStaffPassword(db: Database, input: unknown, now: Date = new Date()) {
  const u = parseOrThrow(StaffSetPassword, input);
  await findStaff(db.prisma, u.username);
  const { password, generated } = choosePassword(u.password);
  const passwordHash = await hashPassword(password);
  await repo.updateStaffEndingSessions(db.prisma, u.username, { passwordHash, passwordChangedAt: now });
  return { ...staffView(await findStaff(db.prisma, u.username)), ...(generated && { password: generated }) };
}

export async function listStaffUsers(db: Database) {
  return (await repo.listStaff(db.prisma)).map(staffView);
}

/**
 * Checks a sign-in form. Unknown user, disabled user, wrong password and malformed input all give
 * `undefined` after the same amount of KDF work, so neither the answer nor its timing tells a
 * guesser which usernames exist.
 */
export async function signIn(db: Database, form: unknown, now: Date = new Date()): Promise<StaffPrincipal | undefined> {
  const parsed = SignInForm.safeParse(form);
  const username = parsed.success ? StaffUsername.safeParse(parsed.data.username) : undefined;
  const user = username?.success ? await repo.findStaffByUsername(db.prisma, username.data) : null;
  const password = parsed.success ? parsed.data.password : '';
  const matches = await verifyPassword(password, user?.passwordHash ?? (await decoyHash()));
  if (!user || !matches || user.disabledAt) return undefined;
  await repo.recordStaffLogin(db.prisma, user.id, now);
  return principalOf(user);
}

/** The principal behind a session, or undefined once the user is disabled or changed password. */
export async function findSessionStaff(
  db: Database,
  id: number,
  generation: number,
): Promise<StaffPrincipal | undefined> {
  const user = await repo.findStaffById(db.prisma, id);
  if (!user || user.disabledAt || user.sessionGeneration !== generation) return undefined;
  return principalOf(user);
}

function principalOf(u: StaffRow): StaffPrincipal {
  return { id: u.id, username: u.username, role: u.role, generation: u.sessionGeneration };
}
