import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files whose assertions measure time (growth ratios, latency beside a hostile upload): they
 * run after the others, one at a time, so that no neighbouring test file takes their CPU.
 */
const TIMED = [
  'test/sbom/hostile-api.test.ts',
  'test/sbom/parsers-linear.test.ts',
  'test/sbom/ecosystems/*/hostile.test.ts',
  // Hostile requests, packages and sites measured against probes of the same process.
  'test/inventory/deep-paths.test.ts',
  'test/inventory/git-bounds.test.ts',
  'test/inventory/glob-linear.test.ts',
  'test/inventory/grep-dos.test.ts',
  'test/inventory/robots-dos.test.ts',
  'test/inventory/sitemap-bounds.test.ts',
  'test/http/upload-concurrency.test.ts',
  'test/http/upload-errors.test.ts',
];

const shared = {
  setupFiles: ['test/leak-guard.ts'],
  pool: 'forks' as const,
  // Tests assert order and progress; on a loaded 2-core machine (two suites side by side) a test
  // that starts worker pools or several processes can take well over 30 s without being stuck.
  testTimeout: 60_000,
  hookTimeout: 60_000,
  teardownTimeout: 30_000,
  // Service processes the tests start inherit it: no advisory sync from OSV's public bucket.
  env: { ADVISORY_DB_URL: 'off' },
};

export default defineConfig({
  test: {
    // Once for the whole run (a migrated template database every file copies).
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        // Test files are isolated (a database copied per file, a Redis prefix of their own,
        // private servers on free ports) and many wait on child processes and timers, so they
        // run three at a time whatever the core count (vitest's default on 2 cores is one).
        test: { ...shared, name: 'isolated', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, ...TIMED], maxWorkers: 3, sequence: { groupOrder: 0 } },
      },
      {
        test: { ...shared, name: 'timed', include: TIMED, maxWorkers: 1, sequence: { groupOrder: 1 } },
      },
    ],
  },
});
