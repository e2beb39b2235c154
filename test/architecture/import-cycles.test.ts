// No import cycles among api/, worker/ and shared/, type-only imports included: a type cycle still
// ties two files' changes together and hides the layer a type belongs to. Nor among the folders of
// shared/: a folder that imports one that imports it back (through any others) has no layer of its own.
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
    expect(await madge('--circular', '--json', 'api', 'worker', 'shared')).toEqual([]);
  });

  it('finds no cycle among the folders of shared/', async () => {
    const files = (await madge('--json', 'shared')) as Record<string, string[]>;
    const folderOf = (file: string) => file.split('/')[0]!;
    const edges = new Map<string, Set<string>>();
    for (const [file, imports] of Object.entries(files)) {
      for (const imported of imports) {
        if (folderOf(imported) === folderOf(file) || folderOf(imported) === 'generated') continue;
        edges.set(folderOf(file), (edges.get(folderOf(file)) ?? new Set()).add(folderOf(imported)));
      }
    }
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...(edges.get(from) ?? [])].some(
        (next) => next === to || (!seen.has(next) && reaches(next, to, seen.add(next))),
      );
    const cycles = [...edges].flatMap(([from, tos]) =>
      [...tos].filter((to) => reaches(to, from)).map((to) => `${from} -> ${to}`),
    );
    expect(edges.size).toBeGreaterThan(10);
    expect(cycles).toEqual([]);
  });
});

/** madge's JSON answer (its exit code is not 0 when it finds a cycle; the JSON says which). */
async function madge(...args: string[]): Promise<unknown> {
  const cli = require.resolve('madge/bin/cli.js');
  const { stdout } = await promisify(execFile)(process.execPath, [cli, ...args], {
    cwd: ROOT,
    maxBuffer: 16 * 1024 * 1024,
  }).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return JSON.parse(stdout) as unknown;
}
