import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_PATH, packTarball, prepareUserDir } from '../../scripts/e2e-lib.mjs';
import { E2E_DIR, INSTALL_DIR, ROOT } from './support/paths';

declare module 'vitest' {
  export interface ProvidedContext {
    e2eTarball: string;
  }
}

/**
 * Once per run: `npm pack` the built package and install the tarball into a
 * Node-RED user directory, as a user would. Every test file links its own
 * user directory's node_modules to this one.
 */
export default function setup(project: TestProject): void {
  if (!existsSync(join(ROOT, 'dist/nodes/config/media-spaces-config.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm run test:e2e does)');
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (never a playwright download)`);
  }
  const started = Date.now();
  const reuse =
    process.env.E2E_REUSE_INSTALL === '1' && existsSync(join(INSTALL_DIR, 'node_modules/@media-spaces/node-red'));
  if (reuse) {
    console.log(`[e2e] E2E_REUSE_INSTALL=1: using the package already installed in ${INSTALL_DIR}`);
    project.provide('e2eTarball', '(reused install)');
    return;
  }
  const { tarball, bytes } = packTarball(ROOT, join(E2E_DIR, 'pack'));
  prepareUserDir(INSTALL_DIR, { tarball });
  console.log(`[e2e] packed ${tarball} (${bytes} bytes) and installed it in ${Date.now() - started} ms`);
  project.provide('e2eTarball', tarball);
}
