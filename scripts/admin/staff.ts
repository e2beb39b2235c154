// `admin staff …`: the users of the staff pages (/admin/queues and /support/), their roles and passwords.
import { readPasswordFrom } from '../../shared/staff/password';
import {
  createStaffUser,
  disableStaffUser,
  enableStaffUser,
  listStaffUsers,
  setStaffPassword,
} from '../../shared/staff/staff.use-cases';
import { str, type Command, type Values } from './command';

const PASSWORD_STDIN = {
  'password-stdin': { type: 'boolean', help: 'read the password from standard input' },
} as const;
const stdinPassword = async (o: Values) => (o['password-stdin'] === true ? readPasswordFrom(process.stdin) : undefined);

export const STAFF_COMMANDS: Record<string, Command> = {
  'staff create': {
    args: ['<username>'],
    options: { role: { type: 'string', arg: 'ROLE', help: 'operator or support' }, ...PASSWORD_STDIN },
    optionsUsage: '--role operator|support [--password-stdin]',
    description:
      'Create a staff user for /admin/queues and /support/; without --password-stdin a password is generated and printed this once.',
    run: async (db, [username], o) =>
      createStaffUser(db, { username, role: str(o.role), password: await stdinPassword(o) }),
  },
  'staff disable': {
    args: ['<username>'],
    description: "Disable a staff user; the user's sessions end at once.",
    run: (db, [username]) => disableStaffUser(db, { username }),
  },
  'staff enable': {
    args: ['<username>'],
    description: 'Let a disabled staff user sign in again.',
    run: (db, [username]) => enableStaffUser(db, { username }),
  },
  'staff set-password': {
    args: ['<username>'],
    options: PASSWORD_STDIN,
    optionsUsage: '[--password-stdin]',
    description:
      "Set a staff user's password (generated and printed this once unless --password-stdin); ends the user's sessions.",
    run: async (db, [username], o) => setStaffPassword(db, { username, password: await stdinPassword(o) }),
  },
  'staff list': {
    args: [],
    description: 'List staff users and their roles (never passwords).',
    run: (db) => listStaffUsers(db),
  },
};
