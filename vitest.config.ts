import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    setupFiles: ['test/leak-guard.ts'],
    pool: 'forks',
    // Test files are isolated (a database copied per file, a Redis prefix of their own, private
    // servers on free ports) and many wait on child processes and timers, so they run three at a
    // time whatever the core count (vitest's default on 2 cores is one at a time).
    maxWorkers: 3,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    teardownTimeout: 30_000,
  },
});
