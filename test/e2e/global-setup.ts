import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { TestProject } from 'vitest/node';
import { CHROMIUM_ARGS, CHROMIUM_PATH, packTarball, prepareUserDir } from '../../scripts/e2e-lib.mjs';
import { E2E_DIR, INSTALL_DIR, ROOT } from './support/paths';

declare module 'vitest' {
  export interface ProvidedContext {
    e2eTarball: string;
    /** the run's chromium (support/browser.ts connects to it; each file in a context of its own) */
    e2eBrowser: string;
  }
}

/**
 * Once per run: `npm pack` the built package and install the tarball into a
 * Node-RED user directory, as a user would. Every test file links its own
 * user directory's node_modules to this one. And one chromium for the run:
 * each file opens a fresh context of it (support/browser.ts) instead of
 * launching a browser of its own.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  if (!existsSync(join(ROOT, 'dist/nodes/config/media-spaces-config.js'))) {
    throw new Error('dist/ is missing: run `npm run build` (npm run test:e2e does)');
  }
  if (!existsSync(CHROMIUM_PATH)) {
    throw new Error(`no chromium at ${CHROMIUM_PATH}: apt-get install -y chromium (never a playwright download)`);
  }
  const server = await chromium.launchServer({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  project.provide('e2eBrowser', server.wsEndpoint());
  const teardown = () => server.close();
  const started = Date.now();
  const reuse =
    process.env.E2E_REUSE_INSTALL === '1' && existsSync(join(INSTALL_DIR, 'node_modules/@media-spaces/node-red'));
  if (reuse) {
    console.log(`[e2e] E2E_REUSE_INSTALL=1: using the package already installed in ${INSTALL_DIR}`);
    project.provide('e2eTarball', '(reused install)');
    return teardown;
  }
  try {
    const { tarball, bytes } = packTarball(ROOT, join(E2E_DIR, 'pack'));
    prepareUserDir(INSTALL_DIR, { tarball });
    console.log(`[e2e] packed ${tarball} (${bytes} bytes) and installed it in ${Date.now() - started} ms`);
    project.provide('e2eTarball', tarball);
  } catch (error) {
    await teardown();
    throw error;
  }
  return teardown;
}
