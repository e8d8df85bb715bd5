import { defineConfig } from 'vitest/config';

/**
 * `npm run test:stress`: the long versions of the load and fault tests (docs/security.md): 30 s of load
 * per scenario, a one-minute syslog outage, kill -9 at random points over several rounds, and
 * many more property-test runs. One file at a time; figures go to test-results/.
 * Not part of `npm test` (minutes, and it needs the machine to itself).
 */
export default defineConfig({
  test: {
    include: ['test/load/**/*.test.ts', 'test/security/**/*.test.ts'],
    pool: 'forks',
    testTimeout: 900_000,
    hookTimeout: 300_000,
    maxWorkers: 1,
    env: { VIGIL_STRESS: '1' },
  },
});
