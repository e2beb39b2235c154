// `npm run pack:client`: the migration client as a package of its own for a migration host, which has
// neither the clone nor its dependencies. esbuild bundles client/main.ts with everything it imports (its
// npm packages and the service's schemas from shared/) into one JavaScript file, so the package has no
// dependencies and installs offline: `npm install -g data-import-client-<version>.tgz`. Prints the
// tarball's path.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.join(__dirname, '..');
const out = path.join(root, 'dist', 'client-package');
const { version, engines } = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

fs.rmSync(out, { recursive: true, force: true });
esbuild.buildSync({
  entryPoints: [path.join(root, 'client', 'main.ts')],
  outfile: path.join(out, 'main.js'),
  bundle: true,
  platform: 'node',
  target: `node${engines.node.replace(/\D/g, '')}`,
  format: 'cjs',
  banner: { js: '#!/usr/bin/env node' },
  logLevel: 'warning',
});
fs.chmodSync(path.join(out, 'main.js'), 0o755);
const manifest = {
  name: 'data-import-client',
  version,
  description: 'The data-import service migration client: sends whole export files, resumes, reconciles.',
  license: 'UNLICENSED',
  engines,
  bin: { 'data-import-client': 'main.js' },
  files: ['main.js'],
};
fs.writeFileSync(path.join(out, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', path.join(root, 'dist')], {
  cwd: out,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
process.stdout.write(path.join(root, 'dist', JSON.parse(packed)[0].filename) + '\n');
