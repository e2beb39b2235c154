import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig, type ProcessRole } from '../../shared/platform/config';
import { estimateEntropyBits, PUBLISHED_SECRETS, secretProblem } from '../../shared/platform/secret-policy';

const ROOT = path.join(__dirname, '../..');
const strong = () => randomBytes(48).toString('base64');

function configError(env: Record<string, string>, role?: ProcessRole): string {
  try {
    loadConfig(env, role);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('signing secrets outside development', () => {
  it('starts with no configuration at all: development is the default and has working secrets', () => {
    const config = loadConfig({});
    expect(config.NODE_ENV).toBe('development');
    expect(config.TOKEN_SECRET.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig({ NODE_ENV: 'test' }).SESSION_SECRET).toBe(config.SESSION_SECRET);
  });

  it('refuses to start in production when either secret is missing, naming each and how to make one', () => {
    const message = configError({ NODE_ENV: 'production' });
    expect(message).toMatch(/TOKEN_SECRET is required outside development: make one with `openssl rand -base64 48`/);
    expect(message).toMatch(/SESSION_SECRET is required/);
    expect(configError({ NODE_ENV: 'production', TOKEN_SECRET: strong() })).not.toMatch(/TOKEN_SECRET/);
  });

  it('requires them of the API only: a worker, which signs nothing, starts in production without them', () => {
    expect(loadConfig({ NODE_ENV: 'production' }, 'worker').NODE_ENV).toBe('production');
    expect(configError({ NODE_ENV: 'production' })).toMatch(/TOKEN_SECRET is required/);
    expect(configError({ NODE_ENV: 'production' }, 'api')).toMatch(/SESSION_SECRET is required/);
    // Everything else is still checked for a worker.
    expect(() => loadConfig({ NODE_ENV: 'production', DB_POOL_SIZE: '0' }, 'worker')).toThrow(/DB_POOL_SIZE/);
  });

  it('treats any NODE_ENV other than development and test as a real deployment', () => {
    for (const env of ['staging', 'Production', 'prod']) {
      expect(configError({ NODE_ENV: env, SESSION_SECRET: strong() })).toMatch(/TOKEN_SECRET is required/);
    }
  });

  it('refuses every value published in the repository, though each is long enough to pass the length check', () => {
    for (const published of PUBLISHED_SECRETS) {
      const message = configError({ NODE_ENV: 'production', TOKEN_SECRET: published, SESSION_SECRET: strong() });
      expect(message).toMatch(/TOKEN_SECRET is a value published in the service's repository/);
    }
  });

  it('refuses short and repetitive values, and a weak SESSION_SECRET_PREVIOUS', () => {
    const weak = [
      randomBytes(16).toString('base64'),
      randomBytes(31).toString('hex'),
      'a'.repeat(200),
      'password'.repeat(10),
      'abab'.repeat(40),
    ];
    for (const value of weak) {
      expect(secretProblem('SESSION_SECRET', value)).toMatch(/SESSION_SECRET has less than 32 bytes of entropy/);
    }
    const message = configError({
      NODE_ENV: 'production',
      TOKEN_SECRET: strong(),
      SESSION_SECRET: strong(),
      SESSION_SECRET_PREVIOUS: 'x'.repeat(40),
    });
    expect(message).toMatch(/SESSION_SECRET_PREVIOUS has less than 32 bytes/);
  });

  it('accepts what the usual generators print for 32 bytes or more', () => {
    for (let i = 0; i < 200; i++) {
      for (const value of [
        strong(),
        randomBytes(32).toString('hex'),
        randomBytes(32).toString('base64url'),
        randomBytes(32).toString('base64'),
      ]) {
        expect(secretProblem('TOKEN_SECRET', value)).toBeUndefined();
      }
    }
    const config = loadConfig({ NODE_ENV: 'production', TOKEN_SECRET: strong(), SESSION_SECRET: strong() });
    expect(config.NODE_ENV).toBe('production');
  });

  it('credits hex with 4 bits a character and base64 with 6', () => {
    expect(estimateEntropyBits(randomBytes(32).toString('hex'))).toBe(256);
    expect(estimateEntropyBits(`+${randomBytes(48).toString('base64').slice(1)}`)).toBe(384);
    // A random base64 value shows no '+' or '/' about one time in eight at 64 characters: it then fits the
    // alphanumeric alphabet and is credited log2(62) bits a character, still well past 256.
    const base64 = randomBytes(48).toString('base64');
    expect(estimateEntropyBits(base64)).toBe(/[+/]/.test(base64) ? 384 : Math.floor(64 * Math.log2(62)));
  });

  it('lists every secret value written anywhere in the repository as published, or refuses it anyway', () => {
    const files = execFileSync('git', ['ls-files'], { cwd: ROOT, encoding: 'utf8' })
      .split('\n')
      .filter(
        (f) =>
          /\.(ts|js|json|md|ya?ml|sh)$|Dockerfile|\.env/.test(f) &&
          !f.startsWith('shared/generated/') &&
          !f.endsWith('package-lock.json'),
      );
    // `TOKEN_SECRET: 'value'`, `TOKEN_SECRET=value`, and compose fallbacks `${TOKEN_SECRET:-value}`.
    const assignment = /(?:TOKEN_SECRET|SESSION_SECRET(?:_PREVIOUS)?)(?::-|['"]?\s*[:=]\s*)['"`]?([^'"`\s,;})]{8,})/g;
    const found: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(ROOT, file), 'utf8');
      for (const match of text.matchAll(assignment)) {
        const value = match[1]!;
        // Computed values (template strings, env look-ups, generated ones) are not published values.
        if (/\$\{|\$\(|process\.env|config\.|^[a-z]+\(|^z\./.test(value)) continue;
        found.push(value);
      }
    }
    expect(found).toContain('test-secret-that-is-long-enough-for-hs256-keys');
    for (const value of found) {
      const listed = PUBLISHED_SECRETS.includes(value);
      expect({ value, refused: listed || secretProblem('TOKEN_SECRET', value) !== undefined }).toEqual({
        value,
        refused: true,
      });
    }
  });
});
