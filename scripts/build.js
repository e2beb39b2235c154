// `npm start` runs compiled JavaScript, not tsx: the TypeScript loader costs ~50 MB of RSS in every
// process. tsc compiles api/, worker/, shared/ (with the generated Prisma client), prisma/ and scripts/
// into dist/ (incremental: an unchanged tree rebuilds in seconds), and the migrations are copied next
// to the compiled runner, which reads them from its own folder.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
if (!fs.existsSync(path.join(root, 'shared', 'generated', 'prisma', 'client.ts'))) {
  execFileSync(process.execPath, [path.join(__dirname, 'prisma-generate.js')], { stdio: 'inherit' });
}
const tsc = require.resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
const migrations = path.join(root, 'dist', 'prisma', 'migrations');
fs.rmSync(migrations, { recursive: true, force: true });
fs.cpSync(path.join(root, 'prisma', 'migrations'), migrations, { recursive: true });
