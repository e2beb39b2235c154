// No import cycles among api/, worker/ and shared/, type-only imports included: a type cycle still
// ties two files' changes together and hides the layer a type belongs to.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.join(__dirname, '..', '..');

describe('import cycles', () => {
  it('madge reads type-only imports too', () => {
    const config = JSON.parse(readFileSync(path.join(ROOT, '.madgerc'), 'utf8')) as {
      detectiveOptions?: { ts?: { skipTypeImports?: boolean } };
    };
    expect(config.detectiveOptions?.ts?.skipTypeImports).toBe(false);
  });

  it('finds no cycle in api/, worker/ and shared/', async () => {
    const cli = require.resolve('madge/bin/cli.js');
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [cli, '--circular', '--json', 'api', 'worker', 'shared'],
      {
        cwd: ROOT,
        maxBuffer: 16 * 1024 * 1024,
      },
    ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
    expect(JSON.parse(stdout)).toEqual([]);
  });
});
