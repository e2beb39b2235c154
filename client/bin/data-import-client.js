#!/usr/bin/env node
// `data-import-client` in a clone (package.json bin, `npx data-import-client`): runs the TypeScript
// client through tsx (a dependency). A migration host installs the bundled package instead
// (`npm run pack:client`, docs/client.md).
require('tsx/cjs');
const { main } = require('../main.ts');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`data-import-client: unexpected error: ${(err && err.message) || err}\n`);
    process.exitCode = 3;
  },
);
