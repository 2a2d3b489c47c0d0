import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as cron from '../../lib/schedule/cron';
import * as plan from '../../lib/schedule/plan';
import * as schemas from '../../lib/schemas';

/**
 * A vitest setup file. The sources require() a few heavy modules on first
 * use, so that Node-RED's start does not load zod, yaml or node-cron
 *. Node cannot load the TypeScript sources vitest runs, so such
 * a require() gets the very module vitest has already loaded: one instance,
 * as in the built package, where the require() loads the compiled file.
 */
const LAZY: Record<string, unknown> = {
  '../../lib/schemas.ts': schemas,
  '../../lib/schedule/cron.ts': cron,
  '../../lib/schedule/plan.ts': plan,
};

const require = createRequire(import.meta.url);
const byFile = new Map(
  Object.entries(LAZY).map(([file, exports]) => [fileURLToPath(new URL(file, import.meta.url)), exports]),
);
for (const file of byFile.keys()) delete require.cache[file];

// require.extensions is deprecated for loading, but it is what makes require() resolve './schemas' to schemas.ts
require.extensions['.ts'] = (module, filename) => {
  const loaded = byFile.get(filename);
  if (loaded === undefined) {
    throw new Error(`${filename} is required lazily by the sources: add it to test/support/lazy-requires.ts`);
  }
  module.exports = loaded;
};
