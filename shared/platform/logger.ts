// One JSON logger for every process. Secrets and customer text are redacted by path: tokens, API keys,
// passwords, the Authorization header and note bodies never reach a log line.
import pino, { type Logger } from 'pino';

export type { Logger };

const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'headers.authorization',
  '*.token',
  '*.refreshToken',
  '*.APIKey',
  '*.api_key',
  '*.password',
  '*.body',
  '*.notes[*].body',
];

export function createLogger(level: string, name: string): Logger {
  return pino({ level, name, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
