// Generates the Prisma client into shared/generated/prisma. `prisma generate` does not use the schema
// engine, but the CLI insists on having one; where it cannot be downloaded (no network) we point it at
// any existing file, as the engine is never executed by generate.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const env = { ...process.env };
if (!env.PRISMA_SCHEMA_ENGINE_BINARY) {
  const enginesDir = path.join(__dirname, '..', 'node_modules', '@prisma', 'engines');
  const engine = fs.existsSync(enginesDir)
    ? fs.readdirSync(enginesDir).find((f) => f.startsWith('schema-engine'))
    : undefined;
  env.PRISMA_SCHEMA_ENGINE_BINARY = engine ? path.join(enginesDir, engine) : process.execPath;
}
const cli = require.resolve('prisma/build/index.js');
execFileSync(process.execPath, [cli, 'generate'], { stdio: ['ignore', 'ignore', 'inherit'], env });
