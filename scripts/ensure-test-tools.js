// The tests need two programs from Debian beside PostgreSQL and Redis: Chromium, which the browser tests
// drive through playwright-core (a registry package, not a browser download, which these machines cannot
// fetch), and PgBouncer, which the pooler tests start on a loopback port to run the service through a
// transaction-mode pooler. `npm test` runs this first so that a bare machine needs nothing beyond the
// README's two commands: all present → silent; root with apt-get → install what is missing and say so
// in one line; otherwise → one line saying exactly what to run, and a non-zero exit (a missing program
// must fail the run, never skip its tests).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const TOOLS = [
  { program: '/usr/bin/chromium', pkg: 'chromium', for: 'the browser tests' },
  { program: '/usr/sbin/pgbouncer', pkg: 'pgbouncer', for: 'the pooler tests' },
];

function isExecutable(file) {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function fail(message) {
  console.error(message);
  process.exit(1);
}

const missing = TOOLS.filter((t) => !isExecutable(t.program));
const packages = missing.map((t) => t.pkg).join(' ');
const installCommand = `apt-get update && apt-get install -y ${packages}`;
const needs = missing.map((t) => `${t.program} (${t.for})`).join(' and ');

// apt-get's own output goes to a buffer and is shown only when it fails: the one-line promise holds on
// success, and a failure still shows apt's reason.
function apt(args) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = spawnSync('apt-get', args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) {
    process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `${run.error.message}\n` : ''}`);
    fail(`The tests need ${needs} and installing them failed; run as root: ${installCommand}`);
  }
}

if (missing.length > 0) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !isExecutable('/usr/bin/apt-get')) {
    fail(`The tests need ${needs}; install Debian's ${packages} first: sudo sh -c '${installCommand}'`);
  }
  console.log(`missing ${needs}: installing Debian's ${packages} (${installCommand})`);
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', ...missing.map((t) => t.pkg)]);
  const still = missing.filter((t) => !isExecutable(t.program));
  if (still.length > 0)
    fail(
      `apt-get installed ${packages} but ${still.map((t) => t.program).join(', ')} is still missing; run: ${installCommand}`,
    );
}
