import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
/** Scratch space of the browser tests (ignored by git, like the rest of test/.tmp). */
export const E2E_DIR = join(ROOT, 'test/.tmp/e2e');
/** The user directory the packed package is installed into, once per run. */
export const INSTALL_DIR = join(E2E_DIR, 'install');
export const INSTALLED_PACKAGE = join(INSTALL_DIR, 'node_modules/@media-spaces/node-red');
/** Every run's screenshots (ignored by git). */
export const SCREENSHOTS_TMP = join(ROOT, 'test/e2e/screenshots-tmp');
/** The committed screenshots, refreshed with UPDATE_SCREENSHOTS=1. */
export const SCREENSHOTS_DOCS = join(ROOT, 'docs/screenshots');
