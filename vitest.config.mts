import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['test/e2e/**', 'test/.tmp/**', 'bench/**', 'node_modules/**', 'dist/**'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // the sources' lazy require()s (issue #15) get the modules vitest loaded
    setupFiles: ['test/support/lazy-requires.ts'],
    // a slot event the transition table has no row for fails the test (lib/schedule/slot-machine)
    env: { MEDIA_SPACES_STRICT_SLOTS: '1' },
    pool: 'forks',
    // Node-RED runtimes and simulators per file; two cores, so keep it to two files at once
    maxWorkers: 2,
  },
});
