#!/usr/bin/env node
// The installed `data-import` command: runs the TypeScript client through tsx (a dependency).
require('tsx/cjs');
const { main } = require('../main.ts');

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`data-import: unexpected error: ${(err && err.stack) || err}\n`);
    process.exitCode = 3;
  },
);
