import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Load tests run afterwards, alone (vitest.load.config.ts).
    exclude: ['test/load/**', '**/node_modules/**'],
    // Integration tests start real listeners and child processes; forks isolate them.
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: more workers only add contention to timing-sensitive socket tests.
    maxWorkers: 2,
  },
});
