// The process entry points sit on top of the business components: api/ and worker/ never import each
// other, and shared/ imports neither. (Cycles are checked by madge in `pretest`.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('generated'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

function importedTopFolders(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map(
    (s) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), s)).split(path.sep)[0]!,
  );
}

const FORBIDDEN: Record<string, string[]> = {
  api: ['worker', 'scripts', 'test', 'bench'],
  worker: ['api', 'scripts', 'test', 'bench'],
  shared: ['api', 'worker', 'scripts', 'test', 'bench'],
};

describe('layering', () => {
  it.each(Object.keys(FORBIDDEN))('%s/ imports none of the folders above it', (folder) => {
    const files = sourceFiles(folder);
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((f) =>
      importedTopFolders(f)
        .filter((top) => FORBIDDEN[folder]!.includes(top))
        .map((top) => `${f} imports ${top}/`),
    );
    expect(violations).toEqual([]);
  });
});
