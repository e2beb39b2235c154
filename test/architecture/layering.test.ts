// The process entry points sit on top of the business components: api/ and worker/ never import each
// other, and shared/ imports neither. Inside shared/, the floors are: platform/ (database, Redis and
// BullMQ plumbing, config, errors) at the bottom, importing no other folder of shared/; the components
// above it, each using another only through its public interface (its use cases and declarations, never
// its *.repository.ts); catalog/ (the list of every job and endpoint) on top, which no component imports.
// (Cycles are checked by madge in `pretest`.)
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.parentPath.includes('generated'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

/** The modules `file` imports by relative path, from the root, without extension (`shared/notes/note.repository`). */
function importedModules(file: string): string[] {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((m) => m[1]!);
  return specifiers.map((s) => path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), s)));
}

/** The folders (`depth` levels below the root) of the files `file` imports by relative path. */
function importedFolders(file: string, depth = 1): string[] {
  return importedModules(file).map((m) => m.split(path.sep).slice(0, depth).join('/'));
}

const componentOf = (file: string) => file.split(path.sep).slice(0, 2).join('/');

const FORBIDDEN: Record<string, string[]> = {
  api: ['worker', 'scripts', 'test', 'bench'],
  worker: ['api', 'scripts', 'test', 'bench'],
  shared: ['api', 'worker', 'scripts', 'test', 'bench', 'prisma'],
};

describe('layering', () => {
  it.each(Object.keys(FORBIDDEN))('%s/ imports none of the folders above it', (folder) => {
    const files = sourceFiles(folder);
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((f) =>
      importedFolders(f)
        .filter((top) => FORBIDDEN[folder]!.includes(top))
        .map((top) => `${f} imports ${top}/`),
    );
    expect(violations).toEqual([]);
  });

  it('shared/platform/ imports no other folder of shared/ (the plumbing knows no component)', () => {
    const files = sourceFiles('shared/platform');
    expect(files.length).toBeGreaterThan(0);
    const violations = files.flatMap((f) =>
      importedFolders(f, 2)
        .filter(
          (folder) => folder.startsWith('shared/') && folder !== 'shared/platform' && folder !== 'shared/generated',
        )
        .map((folder) => `${f} imports ${folder}/`),
    );
    expect(violations).toEqual([]);
  });

  it('no component imports shared/catalog/ (the catalog sits above the components it lists)', () => {
    const files = sourceFiles('shared').filter((f) => !f.startsWith('shared/catalog/'));
    const violations = files.flatMap((f) =>
      importedFolders(f, 2)
        .filter((folder) => folder === 'shared/catalog')
        .map(() => `${f} imports shared/catalog/`),
    );
    expect(violations).toEqual([]);
  });

  it("no component imports another component's repository (it uses that component's use cases)", () => {
    const files = sourceFiles('shared');
    const violations = files.flatMap((f) =>
      importedModules(f)
        .filter((m) => m.endsWith('.repository') && m.startsWith('shared/') && componentOf(m) !== componentOf(f))
        .map((m) => `${f} imports ${m}`),
    );
    expect(violations).toEqual([]);
  });
});
