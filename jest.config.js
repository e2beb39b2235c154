/** Component tests against the real PostgreSQL and Redis; see test/helpers. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testTimeout: 60_000,
  maxWorkers: 2,
};
