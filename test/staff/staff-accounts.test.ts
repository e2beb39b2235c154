import { Readable } from 'node:stream';
import { readPasswordFrom, verifyPassword } from '../../shared/staff/password';
import {
  createStaffUser,
  disableStaffUser,
  enableStaffUser,
  listStaffUsers,
  setStaffPassword,
  signIn,
} from '../../shared/staff/staff.use-cases';
import { openTestDb, uniqueSuffix, type TestDb } from '../helpers/context';

describe('staff accounts', () => {
  let t: TestDb;
  beforeAll(async () => {
    t = await openTestDb();
  });
  afterAll(() => t.db.close());

  const name = () => `staff-${uniqueSuffix().toLowerCase()}`;
  const stored = (username: string) => t.db.prisma.staffUser.findUniqueOrThrow({ where: { username } });

  it('creates a user with a generated password, shown once and stored only as an scrypt hash', async () => {
    const username = name();
    const created = await createStaffUser(t.db, { username, role: 'operator' });
    expect(created).toEqual({
      username,
      role: 'operator',
      status: 'active',
      created_at: expect.any(String),
      password_changed_at: expect.any(String),
      last_login_at: null,
      password: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
    });
    const row = await stored(username);
    expect(row.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    expect(row.passwordHash).not.toContain(created.password!);
    expect(await verifyPassword(created.password!, row.passwordHash)).toBe(true);
    const { password: _shownOnce, ...listed } = created;
    expect((await listStaffUsers(t.db)).find((u) => u.username === username)).toEqual(listed);
    expect(JSON.stringify(await listStaffUsers(t.db))).not.toMatch(/scrypt|password"/);
  });

  it('keeps a given password, lower-cases the username, and refuses the same name twice', async () => {
    const username = name();
    const created = await createStaffUser(t.db, {
      username: username.toUpperCase(),
      role: 'support',
      password: 'correct horse battery',
    });
    expect(created.username).toBe(username);
    expect(created).not.toHaveProperty('password');
    await expect(createStaffUser(t.db, { username, role: 'operator' })).rejects.toMatchObject({
      status: 422,
      code: 'staff_user_already_exists',
    });
    expect((await stored(username)).role).toBe('support');
  });

  it('refuses an unknown role, a malformed username and a short password, naming the field', async () => {
    await expect(createStaffUser(t.db, { username: name(), role: 'admin' })).rejects.toMatchObject({
      status: 400,
      errors: [expect.objectContaining({ attr: 'role', code: 'invalid_choice' })],
    });
    await expect(createStaffUser(t.db, { username: 'has space', role: 'support' })).rejects.toMatchObject({
      errors: [expect.objectContaining({ attr: 'username', code: 'invalid' })],
    });
    await expect(createStaffUser(t.db, { username: name(), role: 'support', password: 'short' })).rejects.toMatchObject(
      {
        errors: [expect.objectContaining({ attr: 'password', code: 'min_length' })],
      },
    );
  });

  it('disables and enables a user; a disabled user cannot sign in', async () => {
    const username = name();
    await createStaffUser(t.db, { username, role: 'support', password: 'the-password-123' });
    expect((await disableStaffUser(t.db, { username })).status).toBe('disabled');
    expect(await signIn(t.db, { username, password: 'the-password-123' })).toBeUndefined();
    const before = await stored(username);
    await disableStaffUser(t.db, { username });
    expect((await stored(username)).disabledAt).toEqual(before.disabledAt);
    expect((await enableStaffUser(t.db, { username })).status).toBe('active');
    expect(await signIn(t.db, { username, password: 'the-password-123' })).toMatchObject({ username, role: 'support' });
  });

  it('rotates a password: the old one stops working and a generated new one is shown once', async () => {
    const username = name();
    await createStaffUser(t.db, { username, role: 'operator', password: 'the-old-password-1' });
    const generation = (await stored(username)).sessionGeneration;
    const changed = await setStaffPassword(t.db, { username });
    expect(changed.password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect((await stored(username)).sessionGeneration).toBe(generation + 1);
    expect(await signIn(t.db, { username, password: 'the-old-password-1' })).toBeUndefined();
    expect(await signIn(t.db, { username: username.toUpperCase(), password: changed.password })).toMatchObject({
      username,
    });
  });

  it('answers 404 staff_user_not_found for commands on an unknown user', async () => {
    for (const command of [disableStaffUser, enableStaffUser, setStaffPassword]) {
      await expect(command(t.db, { username: name() })).rejects.toMatchObject({
        status: 404,
        code: 'staff_user_not_found',
      });
    }
  });

  it('reads --password-stdin input without its trailing line break', async () => {
    expect(await readPasswordFrom(Readable.from([Buffer.from('pass word with spaces\n')]))).toBe(
      'pass word with spaces',
    );
    expect(await readPasswordFrom(Readable.from([Buffer.from('crlf-password\r\n')]))).toBe('crlf-password');
  });
});
