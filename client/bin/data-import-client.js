#!/usr/bin/env node
// `data-import-client` in a clone: `npm run --silent client -- …`, `node client/bin/data-import-client.js …`,
// `npx data-import-client …`, or on the PATH after `npm link`. Runs the compiled client from dist/,
// compiling first only when a source changed since the last build (scripts/build.js says "building…"
// then), so it starts in a fraction of a second and needs no TypeScript loader and no npx cache. A
// migration host installs the bundled package instead (`npm run pack:client`, docs/client.md).
const { ensureBuilt } = require('../../scripts/build.js');

try {
  ensureBuilt();
} catch (err) {
  process.stderr.write(`data-import-client: the build failed: ${(err && err.message) || err}\n`);
  process.exit(3);
}
const { main } = require('../../dist/client/main.js');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`data-import-client: unexpected error: ${(err && err.message) || err}\n`);
    process.exitCode = 3;
  },
);
