// Prisma CLI configuration. The CLI is used here only for `generate`; migrations are applied by
// prisma/migrate.ts (see the README). DATABASE_URL matters only to CLI commands that connect.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: { url: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/data_import' },
});
