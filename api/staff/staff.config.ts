// Settings of the staff pages. These fields belong in shared/platform/config.ts's ConfigSchema; until
// they are there, they are read from the config object with the same schema (parsing is idempotent),
// so a missing value takes the same default either way.
import { z } from 'zod';
import type { Config } from '../../shared/platform/config';

const DEV_SESSION_SECRET = 'dev-only-session-secret-do-not-use-in-production';

export const StaffConfigFields = {
  // Signs the staff session cookie. To rotate it, move the old one to SESSION_SECRET_PREVIOUS: cookies
  // signed with either are accepted, new ones are signed with SESSION_SECRET.
  SESSION_SECRET: z.string().min(32).default(DEV_SESSION_SECRET),
  SESSION_SECRET_PREVIOUS: z.string().min(32).optional(),
  // Secure flag of the staff cookies: "auto" sets it when the request came over HTTPS (behind a proxy
  // that needs TRUST_PROXY); "true" always (then the cookie also takes the __Host- prefix); "false"
  // never, for plain http://localhost.
  STAFF_COOKIE_SECURE: z.enum(['auto', 'true', 'false']).default('auto'),
  // A staff session ends after this long without a request, and in any case this long after sign-in.
  STAFF_SESSION_IDLE_SECONDS: z.coerce.number().int().positive().default(30 * 60),
  STAFF_SESSION_MAX_SECONDS: z.coerce.number().int().positive().default(12 * 3600),
  // Failed sign-ins per client address per minute.
  STAFF_LOGIN_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().positive().default(10),
};

const StaffConfigSchema = z.object(StaffConfigFields);
export type StaffConfig = z.infer<typeof StaffConfigSchema>;

export function staffConfigOf(config: Config): StaffConfig & Pick<Config, 'QUEUE_PREFIX'> {
  return { ...StaffConfigSchema.parse(config), QUEUE_PREFIX: config.QUEUE_PREFIX };
}

export function usesDevSessionSecret(config: StaffConfig): boolean {
  return config.SESSION_SECRET === DEV_SESSION_SECRET;
}
