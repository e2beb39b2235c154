// The entry points as an operator starts them: a child process, its exit code and its log lines.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { testDatabaseUrl } from '../helpers/context';
import { until } from '../helpers/until';

const ROOT = path.join(__dirname, '../..');

function startApiProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      DATABASE_URL: testDatabaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      QUEUE_PREFIX: '{boot-test}',
      ...env,
    },
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output, exited };
}

describe('starting the API process', () => {
  it('refuses to start in production without its secrets, saying which and how to make them', async () => {
    const api = startApiProcess({ NODE_ENV: 'production' });
    expect(await api.exited).toBe(1);
    expect(api.output.stderr).toMatch(
      /TOKEN_SECRET is required outside development: make one with `openssl rand -base64 48`/,
    );
    expect(api.output.stderr).toMatch(/SESSION_SECRET is required/);
  });

  it('starts with no configuration and warns that the payment vendor is not configured', async () => {
    const api = startApiProcess({});
    try {
      await until('the listening line', () => (api.output.stdout.includes('api listening') ? true : undefined), 45_000);
      const warning = api.output.stdout.split('\n').find((line) => line.includes('"vendor":"STRIPE"'));
      expect(JSON.parse(warning!)).toMatchObject({ level: 40, msg: expect.stringMatching(/STRIPE_SECRET_KEY/) });
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  }, 60_000);
});
