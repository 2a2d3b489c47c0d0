import { defineConfig } from 'vitest/config';

/**
 * Reliability suites (faults, fuzz, redeploy, restart, security): long-running,
 * so they are named *.suite.ts and stay out of `npm test`. Each runs through its
 * own npm script (test:faults, test:fuzz, test:redeploy, ...); RELIABILITY_SIZE=long
 * selects the long local size.
 */
export default defineConfig({
  test: {
    include: ['test/reliability/**/*.suite.ts'],
    exclude: ['test/.tmp/**', 'node_modules/**', 'dist/**'],
    testTimeout: 30 * 60_000,
    hookTimeout: 120_000,
    // the sources' lazy require()s (issue #15) get the modules vitest loaded
    setupFiles: ['test/support/lazy-requires.ts'],
    // a slot event the transition table has no row for fails the test (lib/schedule/slot-machine)
    env: { MEDIA_SPACES_STRICT_SLOTS: '1' },
    pool: 'forks',
    // heap figures need global.gc()
    execArgv: ['--expose-gc'],
    // one suite at a time: they measure handles, sockets and heap of their own process
    maxWorkers: 1,
    fileParallelism: false,
  },
});
