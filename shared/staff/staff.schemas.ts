// Shapes of the staff-account commands and of the sign-in form. Usernames are compared lower-case, so
// "Alice" and "alice" are one account.
import { z } from 'zod';

const STAFF_ROLES = ['operator', 'support'] as const;
export type StaffRoleName = (typeof STAFF_ROLES)[number];

export const StaffUsername = z
  .string()
  // Bounded before trimming and matching (room for surrounding spaces a form may add).
  .max(256, { abort: true })
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9][a-z0-9._@-]{1,63}$/,
    'Use 2-64 characters: letters, digits and . _ @ - (starting with a letter or digit).',
  );

// Long passphrases are welcome; the upper bound only keeps a request from feeding megabytes to the KDF.
const StaffPassword = z.string().min(12).max(1024);

export const StaffCreate = z.strictObject({
  username: StaffUsername,
  role: z.enum(STAFF_ROLES),
  password: StaffPassword.optional(),
});

export const StaffRef = z.strictObject({ username: StaffUsername });

export const StaffSetPassword = z.strictObject({
  username: StaffUsername,
  password: StaffPassword.optional(),
});

/** The sign-in form. Anything malformed fails sign-in the same way a wrong password does. */
export const SignInForm = z.object({
  username: z.string().max(200),
  password: z.string().max(1024),
});
