import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

// Browser tests: a real Node-RED editor (the packed package installed in its
// user directory) driven by playwright-core through Debian's chromium.
// `npm run test:e2e` builds first; one file at a time (each starts Node-RED,
// a simulator and a browser, and the machine has two cores).
export default defineConfig({
  root: fileURLToPath(new URL('../..', import.meta.url)),
  test: {
    include: ['test/e2e/**/*.e2e.test.ts'],
    // the sources' lazy require()s (issue #15) get the modules vitest loaded
    setupFiles: ['test/support/lazy-requires.ts'],
    // a slot event the transition table has no row for fails the test (lib/schedule/slot-machine)
    env: { MEDIA_SPACES_STRICT_SLOTS: '1' },
    globalSetup: ['test/e2e/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    maxWorkers: 1,
  },
});
