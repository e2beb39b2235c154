// `npm start`'s build step (and `npm run build`, the clone's client and admin commands): compiled
// JavaScript, not tsx, because the TypeScript loader costs ~50 MB of RSS in every process and seconds
// at every start. tsc compiles api/, worker/, shared/ (with the generated Prisma client), prisma/,
// scripts/ and client/ into dist/, and the migrations are copied next to the compiled runner, which
// reads them from its own folder.
//
// A build leaves a stamp in dist/: a hash of the path, size and modification time of every source
// file and of the compiler settings and lockfile. When the stamp matches and the entry points are there,
// nothing is compiled (a stat of each source file: well under a second); otherwise it says "building…"
// on stderr, compiles (incremental), and writes the new stamp. `--force` compiles whatever the stamp says.
const { execFileSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'dist');
const STAMP = path.join(dist, '.build-stamp');
const SOURCE_DIRS = ['api', 'worker', 'shared', 'prisma', 'scripts', 'client'];
const SOURCE_FILES = ['tsconfig.json', 'tsconfig.build.json', 'package-lock.json'];
/** What the package.json scripts and the client's bin run: a stamp without them is not trusted. */
const ENTRY_POINTS = ['scripts/start.js', 'api/main.js', 'worker/main.js', 'scripts/admin.js', 'client/main.js'];
/** A bound on the walk: far above the tree's few hundred files, so a runaway tree fails loudly. */
const MAX_FILES = 50_000;

/** The hash of every source file's path, size and mtime, in a fixed order. */
function sourceFingerprint() {
  const lines = [];
  const visit = (relative) => {
    const full = path.join(root, relative);
    let stat;
    try {
      stat = fs.statSync(full);
    } catch {
      return;
    }
    if (stat.isDirectory()) {
      for (const name of fs.readdirSync(full).sort()) {
        if (name !== 'node_modules') visit(path.join(relative, name));
      }
      return;
    }
    if (lines.length >= MAX_FILES) throw new Error(`build: more than ${MAX_FILES} source files under ${relative}`);
    lines.push(`${relative}\t${stat.size}\t${stat.mtimeMs}`);
  };
  for (const entry of [...SOURCE_DIRS, ...SOURCE_FILES]) visit(entry);
  return createHash('sha256').update(lines.join('\n')).digest('hex');
}

function readStamp() {
  try {
    return fs.readFileSync(STAMP, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/** Whether dist/ was built from the sources as they are now. */
function isCurrent(fingerprint = sourceFingerprint()) {
  return readStamp() === fingerprint && ENTRY_POINTS.every((entry) => fs.existsSync(path.join(dist, entry)));
}

/** Compiles when dist/ is not current (or `force`); returns whether it compiled. */
function ensureBuilt({ force = false } = {}) {
  if (!fs.existsSync(path.join(root, 'shared', 'generated', 'prisma', 'client.ts'))) {
    process.stderr.write('building… generating the Prisma client first\n');
    execFileSync(process.execPath, [path.join(__dirname, 'prisma-generate.js')], { stdio: 'inherit' });
  }
  // Taken before compiling: a file edited during the build makes the next start build again.
  const fingerprint = sourceFingerprint();
  if (!force && isCurrent(fingerprint)) return false;
  const started = Date.now();
  process.stderr.write(
    `building… compiling TypeScript into dist/ (${readStamp() ? 'sources changed' : 'first build'}; later starts skip this while nothing changes)\n`,
  );
  fs.rmSync(STAMP, { force: true });
  const tsc = require.resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit', cwd: root });
  const migrations = path.join(dist, 'prisma', 'migrations');
  fs.rmSync(migrations, { recursive: true, force: true });
  fs.cpSync(path.join(root, 'prisma', 'migrations'), migrations, { recursive: true });
  fs.writeFileSync(STAMP, fingerprint + '\n');
  process.stderr.write(`built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return true;
}

module.exports = { ensureBuilt, isCurrent };

if (require.main === module) {
  try {
    ensureBuilt({ force: process.argv.includes('--force') });
  } catch (err) {
    // tsc has printed its errors; the stack of execFileSync would only bury them.
    process.stderr.write(`build failed: ${err.message.split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
