// How many source files one request's code reaches: the files the given entry files load at run time,
// following relative imports (type-only imports are erased and do not count; the generated Prisma
// client is left out). docs/code-shape.md "Files one request loads" gives the current figures.
//
//   node scripts/import-closure.js [--root <dir>] [--list] <entry.ts>...
const fs = require('node:fs');
const path = require('node:path');

const args = process.argv.slice(2);
const flag = (name) => {
  const i = args.indexOf(name);
  if (i < 0) return undefined;
  return args.splice(i, name === '--root' ? 2 : 1)[name === '--root' ? 1 : 0];
};
const root = path.resolve(flag('--root') ?? '.');
const list = flag('--list') !== undefined;

const runtimeImports = (file) =>
  [...fs.readFileSync(file, 'utf8').matchAll(/^(?:import|export)\s+(?!type\s)[^;]*?from\s+'(\.[^']+)'/gms)].map(
    (m) => m[1],
  );
const resolve = (from, specifier) => {
  const base = path.resolve(path.dirname(from), specifier);
  return [`${base}.ts`, path.join(base, 'index.ts'), base].find((f) => f.endsWith('.ts') && fs.existsSync(f));
};

const queue = args.map((entry) => path.join(root, entry));
const seen = new Set();
while (queue.length > 0) {
  const file = queue.pop();
  if (seen.has(file)) continue;
  seen.add(file);
  for (const specifier of runtimeImports(file)) {
    const target = resolve(file, specifier);
    if (target && !target.includes(`${path.sep}generated${path.sep}`)) queue.push(target);
  }
}
const files = [...seen].map((f) => path.relative(root, f)).sort();
console.log(list ? files.join('\n') : String(files.length));
