/** Component tests against the real PostgreSQL and Redis; see test/helpers. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['@swc/jest'] },
  testTimeout: 60_000,
  maxWorkers: 2,
  // A worker closes its PostgreSQL pools, Redis connections and browsers after its last file; on a loaded
  // machine that takes longer than jest's default 500 ms, and jest then kills it and reports "a worker
  // process has failed to exit gracefully" though nothing leaked (every suspicious file, run alone in
  // band, leaves no handle: docs/testing.md). A handle that truly leaks still outlasts this and is reported.
  workerGracefulExitTimeout: 5_000,
};
