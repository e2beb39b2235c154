// The browser tests drive Debian's Chromium through playwright-core (a registry package, not a browser
// download, which these machines cannot fetch). `npm test` runs this first so that a bare machine
// needs nothing beyond the README's two commands: present → silent; root with apt-get → install it and
// say so in one line; otherwise → one line saying exactly what to run, and a non-zero exit (a missing
// browser must fail the run, never skip its tests).
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');

const CHROMIUM = '/usr/bin/chromium';
const INSTALL_COMMAND = 'apt-get update && apt-get install -y chromium';

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

// apt-get's own output goes to a buffer and is shown only when it fails: the one-line promise holds on
// success, and a failure still shows apt's reason.
function apt(args) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const run = spawnSync('apt-get', args, { env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) {
    process.stderr.write(`${run.stdout ?? ''}${run.stderr ?? ''}${run.error ? `${run.error.message}\n` : ''}`);
    fail(`The browser tests need ${CHROMIUM} and installing it failed; run as root: ${INSTALL_COMMAND}`);
  }
}

if (!isExecutable(CHROMIUM)) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot || !isExecutable('/usr/bin/apt-get')) {
    fail(`The browser tests need ${CHROMIUM}; install Debian's chromium first: sudo sh -c '${INSTALL_COMMAND}'`);
  }
  console.log(`${CHROMIUM} is missing: installing Debian's chromium for the browser tests (${INSTALL_COMMAND})`);
  apt(['update', '-qq']);
  apt(['install', '-y', '-qq', 'chromium']);
  if (!isExecutable(CHROMIUM))
    fail(`apt-get installed chromium but ${CHROMIUM} is still missing; run: ${INSTALL_COMMAND}`);
}
