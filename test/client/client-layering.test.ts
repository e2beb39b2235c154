// The client runs on any machine that reaches the service: whatever it loads, directly or through
// shared/, must not need the service's database, Redis or queue code. Type-only imports are erased at
// build time and do not count.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const SERVER_ONLY_PACKAGES = [
  'pg',
  'pg-query-stream',
  'ioredis',
  'bullmq',
  '@prisma/client',
  '@prisma/adapter-pg',
  'express',
];

function runtimeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s+(?!type\s)[^;]*?from\s+'([^']+)'/gms)].map((m) => m[1]!);
}

function resolveLocal(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  return [base, `${base}.ts`, path.join(base, 'index.ts')].find((f) => existsSync(f) && f.endsWith('.ts'))!;
}

it('loads nothing from api/, worker/ or scripts/, and no database, Redis or queue package', () => {
  const queue = readdirSync(path.join(ROOT, 'client'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(ROOT, 'client', f));
  const seen = new Set<string>();
  const problems: string[] = [];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    const relative = path.relative(ROOT, file);
    if (!/^(client|shared)\//.test(relative) || /\.repository\.ts$|platform\/(db|redis|jobs)\.ts$/.test(relative)) {
      problems.push(`loads ${relative}`);
    }
    for (const specifier of runtimeImports(file)) {
      if (specifier.startsWith('.')) queue.push(resolveLocal(file, specifier));
      else if (SERVER_ONLY_PACKAGES.some((p) => specifier === p || specifier.startsWith(`${p}/`)))
        problems.push(`${relative} imports ${specifier}`);
    }
  }
  expect(seen.size).toBeGreaterThan(10);
  expect(problems).toEqual([]);
});
