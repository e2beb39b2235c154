// Runs @seriousme/openapi-schema-validator (schema of the document's OpenAPI version, and every $ref
// resolving) on the document read from stdin and prints the verdict as JSON. A separate process
// because the validator is ESM-only and jest runs tests as CommonJS.
import { Validator } from '@seriousme/openapi-schema-validator';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const validator = new Validator();
const result = await validator.validate(JSON.parse(Buffer.concat(chunks).toString('utf8')));
process.stdout.write(
  JSON.stringify({ valid: result.valid, version: validator.version, errors: result.errors ?? null }),
);
