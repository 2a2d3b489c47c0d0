import { copyFileSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { Simulator, SimulatorOptions } from '../../../lib/simulator';
import { type NodeRedHandle, startNodeRed, writeSettings } from '../../../scripts/e2e-lib.mjs';
import { openPage } from './browser';
import { E2E_DIR, INSTALL_DIR, INSTALLED_PACKAGE, ROOT, SCREENSHOTS_DOCS, SCREENSHOTS_TMP } from './paths';

const require = createRequire(import.meta.url);

export interface Stack {
  sim: Simulator;
  nodeRed: NodeRedHandle;
  browser: Browser;
  page: Page;
  userDir: string;
  /** Console errors and uncaught page errors seen in the editor. */
  pageErrors: string[];
  close(): Promise<void>;
}

/**
 * The simulator shipped in the installed package (in process), a real
 * Node-RED whose user directory holds the installed tarball, and chromium
 * with the editor open and the palette loaded.
 */
export async function startStack(name: string, simOptions: SimulatorOptions = {}): Promise<Stack> {
  const { startSimulator } = require(join(INSTALLED_PACKAGE, 'dist/lib/simulator/index.js')) as {
    startSimulator: (o: SimulatorOptions) => Promise<Simulator>;
  };
  const userDir = join(E2E_DIR, `userdir-${name}`);
  rmSync(userDir, { recursive: true, force: true });
  mkdirSync(userDir, { recursive: true });
  writeSettings(userDir);
  copyFileSync(join(INSTALL_DIR, 'package.json'), join(userDir, 'package.json'));
  symlinkSync(join(INSTALL_DIR, 'node_modules'), join(userDir, 'node_modules'), 'dir');

  const sim = await startSimulator({ port: 0, host: '127.0.0.1', ...simOptions });
  let nodeRed: NodeRedHandle | undefined;
  let browser: Browser | undefined;
  try {
    // Node-RED starts while the browser opens its page
    const starting = startNodeRed({ redJs: require.resolve('node-red/red.js', { paths: [ROOT] }), userDir });
    const opening = openPage({ width: 1400, height: 900 });
    const [startedRed, opened] = await Promise.allSettled([starting, opening]);
    if (startedRed.status === 'fulfilled') nodeRed = startedRed.value;
    if (opened.status === 'fulfilled') browser = opened.value.browser;
    if (startedRed.status === 'rejected') throw startedRed.reason;
    if (opened.status === 'rejected') throw opened.reason;
    const red = startedRed.value;
    const { page } = opened.value;
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(red.url);
    await page.waitForSelector('.red-ui-palette-node[data-palette-type="media-spaces-submit-job"]', {
      timeout: 30_000,
    });
    // the editor is ready once the workspace exists and the initial flows are loaded
    await page.waitForFunction(() => {
      const RED = (window as unknown as { RED?: { workspaces?: { active(): string } } }).RED;
      return Boolean(RED?.workspaces?.active());
    });
    const openedBrowser = opened.value.browser;
    return {
      sim,
      nodeRed: red,
      browser: openedBrowser,
      page,
      userDir,
      pageErrors,
      async close() {
        await Promise.all([openedBrowser.close().catch(() => undefined), red.stop()]);
        await sim.close();
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await nodeRed?.stop();
    await sim.close();
    throw error;
  }
}

/** Saves a screenshot to test/e2e/screenshots-tmp, and to docs/screenshots when UPDATE_SCREENSHOTS=1. */
export async function screenshot(page: Page, file: string, clip?: 'tray' | 'sidebar'): Promise<string> {
  mkdirSync(SCREENSHOTS_TMP, { recursive: true });
  // notifications ("Imported 3 nodes", "Successfully deployed") cover the dialogs
  await page.evaluate(() => {
    const box = document.getElementById('red-ui-notifications');
    if (box) box.style.visibility = 'hidden';
  });
  const path = join(SCREENSHOTS_TMP, file);
  if (clip === 'tray') {
    await page.locator('.red-ui-tray').last().screenshot({ path });
  } else if (clip === 'sidebar') {
    await page.locator('#red-ui-sidebar').screenshot({ path });
  } else {
    await page.screenshot({ path });
  }
  await page.evaluate(() => {
    const box = document.getElementById('red-ui-notifications');
    if (box) box.style.visibility = '';
  });
  if (process.env.UPDATE_SCREENSHOTS === '1') {
    mkdirSync(SCREENSHOTS_DOCS, { recursive: true });
    copyFileSync(path, join(SCREENSHOTS_DOCS, file));
  }
  return path;
}

/**
 * A media-spaces-config node for the stack's simulator, with the space's admin key as its
 * credential (imported with the node, as a user types it into the dialog).
 */
export function simulatorServer(stack: Stack, id: string, extra: Record<string, unknown> = {}) {
  const space = stack.sim.info().spaces[0];
  return {
    id,
    type: 'media-spaces-config',
    name: 'Simulator',
    workflowUrl: stack.sim.workflowUrl,
    spaceId: space.space_id,
    workflowPrefix: '/workflow/v1',
    timeout: 5000,
    retries: 0,
    rejectUnauthorized: true,
    credentials: { apiKey: space.api_keys.admin },
    ...extra,
  };
}

/**
 * From an open node dialog, "Add new Media Spaces server" (the button beside Server) with the
 * stack's simulator typed in as a user types it: name "Simulator", both URLs, the space, its admin
 * key and access token. The config dialog stays open (for Test connection, or its Add button).
 */
export async function addSimulatorServer(stack: Stack): Promise<void> {
  const { page } = stack;
  const space = stack.sim.info().spaces[0];
  await page.click('#node-input-btn-server-add');
  await page.locator('#node-config-input-workflowUrl').waitFor({ state: 'visible' });
  await page.waitForTimeout(400);
  await page.fill('#node-config-input-name', 'Simulator');
  await page.fill('#node-config-input-workflowUrl', stack.sim.workflowUrl);
  await page.fill('#node-config-input-liveCaptureUrl', stack.sim.liveCaptureUrl);
  await page.fill('#node-config-input-spaceId', space.space_id);
  await page.fill('#node-config-input-apiKey', space.api_keys.admin ?? '');
  await page.fill('#node-config-input-accessToken', space.access_token ?? '');
}
