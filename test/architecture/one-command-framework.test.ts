// The client and `admin` share one command-line framework, shared/cli/options.ts: it alone parses a
// command line with node's util.parseArgs, so a second framework (a parser, a Command shape with its own
// option format) cannot appear unnoticed. The one-shot tools below take a handful of options and have no
// commands; they are listed by name so that a new one is a decision, not an accident.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const FRAMEWORK = 'shared/cli/options.ts';
const ONE_SHOT_TOOLS = ['scripts/rehearsal.ts', 'scripts/fake-vendor.ts', 'bench/options.ts', 'bench/curves.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.(ts|js)$/.test(e.name) && !e.parentPath.includes('generated'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'));
}

const importsParseArgs = (file: string) =>
  /import\s*\{[^}]*\bparseArgs\b[^}]*\}\s*from\s*'(node:)?util'|require\('(node:)?util'\)/.test(
    readFileSync(path.join(ROOT, file), 'utf8'),
  );

describe('one command-line framework', () => {
  const files = ['api', 'worker', 'shared', 'client', 'scripts', 'bench', 'prisma'].flatMap(sourceFiles);

  it('only shared/cli/options.ts (and the listed one-shot tools) import parseArgs', () => {
    expect(files).toContain(FRAMEWORK);
    expect(files.filter(importsParseArgs).filter((f) => !ONE_SHOT_TOOLS.includes(f))).toEqual([FRAMEWORK]);
  });

  it('the client and admin both declare their commands through it', () => {
    const users = files.filter((f) =>
      /from '[./]*shared\/cli\/options'/.test(readFileSync(path.join(ROOT, f), 'utf8')),
    );
    expect(users).toEqual(
      expect.arrayContaining(['client/cli/command.ts', 'scripts/admin.ts', 'scripts/admin/command.ts']),
    );
  });
});
