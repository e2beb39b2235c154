// Facts the docs state that the code base can check, so that they cannot drift silently: every library
// docs/architecture.md names is a dependency in package.json; every job and endpoint declaration is
// named in docs/architecture.md; the line-budget exemptions docs/code-shape.md lists are exactly the
// ones eslint.config.mjs configures.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');
const architecture = read('docs/architecture.md');

/** A section of a markdown page: from its heading to the next heading of the same level. */
function section(text: string, heading: string): string {
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

/** Source files under `dir` whose name ends with `suffix`. */
function filesEnding(dir: string, suffix: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith(suffix) && !e.parentPath.includes('generated'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)));
}

describe('docs/architecture.md', () => {
  it('names as libraries only packages that package.json depends on', () => {
    const pkg = JSON.parse(read('package.json')) as Record<string, Record<string, string> | undefined>;
    const dependencies = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})]);
    // Bold names, with the major version some of them carry (`**express 5**`).
    const named = [...section(architecture, 'Libraries and why').matchAll(/\*\*([^*]+)\*\*/g)].map((m) =>
      m[1]!.replace(/ \d+$/, ''),
    );
    expect(named.length).toBeGreaterThan(30);
    expect(named.filter((name) => !dependencies.has(name))).toEqual([]);
  });

  it('names every job declaration and every endpoint declaration', () => {
    const declarations = [...filesEnding('shared', '.job.ts'), ...filesEnding('shared', '.endpoint.ts')];
    expect(declarations.length).toBeGreaterThan(10);
    expect(declarations.filter((file) => !architecture.includes(`\`${file}\``))).toEqual([]);
  });
});

describe('docs/code-shape.md', () => {
  it('lists exactly the line-budget exemptions eslint.config.mjs configures', () => {
    // The blocks that turn the budgets off: `files: [...]` followed by `rules: { 'max-lines': 'off', …`.
    const blocks = [...read('eslint.config.mjs').matchAll(/files: \[([^\]]*)\],\s*rules: \{ 'max-lines': 'off'/g)];
    const configured = blocks.flatMap((b) => [...b[1]!.matchAll(/'([^']+)'/g)].map((m) => m[1]!));
    const exceptions = read('docs/code-shape.md').split('Named exceptions')[1]!.split('\n## ')[0]!;
    const listed = [...exceptions.matchAll(/`([\w./-]+\.(?:ts|mjs|js))`/g)]
      .map((m) => m[1]!)
      .filter((file) => /^(api|worker|shared|client|scripts|bench|prisma)\//.test(file));
    expect(configured.length).toBeGreaterThan(0);
    expect([...new Set(listed)].sort()).toEqual([...new Set(configured)].sort());
  });
});
