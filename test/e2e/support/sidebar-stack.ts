import { copyFileSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { writeSettings } from '../../../scripts/e2e-lib.mjs';
import { installFixtureNodes } from '../../nodes/sidebar/support';
import { type NodeRedProcess, startNodeRed } from '../../reliability/support-restart/node-red';
import { openPage } from './browser';
import { E2E_DIR, INSTALL_DIR, ROOT } from './paths';
import { showSidebarTab, sidebarTabButton } from './sidebar-tabs';

export interface SidebarStack {
  readonly nodeRed: NodeRedProcess;
  userDir: string;
  /** Stops Node-RED and starts it again on the same port and user directory; the page stays open. */
  restart(): Promise<void>;
  browser: Browser;
  page: Page;
  pageErrors: string[];
  close(): Promise<void>;
}

export interface SidebarStackOptions {
  /** the deployed flow (flows.json), fixture nodes feeding the sidebar */
  flows: Record<string, unknown>[];
  /** flows_cred.json (the settings keep it unencrypted): node id -> credentials */
  credentials?: Record<string, Record<string, string>>;
  /** extra settings.js properties (adminAuth) */
  settings?: string;
  /** run Node-RED as if its clock read this ISO instant at start */
  fakeNow?: string;
  /** sign in to the editor as this user (adminAuth) */
  login?: { username: string; password: string };
}

/**
 * A real Node-RED with the installed package (the tarball, as global-setup
 * installed it) plus the test-only feeding nodes in its nodes/ folder (for
 * what real nodes cannot produce) and a deployed flow, and chromium with the
 * editor open.
 */
export async function startSidebarStack(name: string, options: SidebarStackOptions): Promise<SidebarStack> {
  const userDir = join(E2E_DIR, `userdir-sidebar-${name}`);
  rmSync(userDir, { recursive: true, force: true });
  mkdirSync(userDir, { recursive: true });
  writeSettings(userDir, { extra: options.settings ?? '' });
  copyFileSync(join(INSTALL_DIR, 'package.json'), join(userDir, 'package.json'));
  symlinkSync(join(INSTALL_DIR, 'node_modules'), join(userDir, 'node_modules'), 'dir');
  installFixtureNodes(userDir);
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(options.flows, null, 2));
  if (options.credentials) writeFileSync(join(userDir, 'flows_cred.json'), JSON.stringify(options.credentials));
  const env: Record<string, string> = {};
  if (options.fakeNow) {
    env.FAKE_NOW = options.fakeNow;
    env.NODE_OPTIONS = `--require ${join(ROOT, 'test/e2e/fixtures/fake-now.cjs')}`;
  }
  // answers once the editor does, 401 included (adminAuth); Node-RED starts while the browser opens its page
  const [startedRed, opened] = await Promise.allSettled([
    startNodeRed({ userDir, env }),
    openPage({ width: 1600, height: 1000 }),
  ]);
  if (startedRed.status === 'rejected') {
    if (opened.status === 'fulfilled') await opened.value.browser.close().catch(() => undefined);
    throw startedRed.reason;
  }
  let nodeRed = startedRed.value;
  let browser: Browser | undefined;
  try {
    if (opened.status === 'rejected') throw opened.reason;
    browser = opened.value.browser;
    const { page } = opened.value;
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => {
      pageErrors.push(String(e));
      // where it was thrown: the message alone cannot tell the editor's code from ours
      console.error(`[page error] ${e.stack ?? e}`);
    });
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(nodeRed.url);
    if (options.login) {
      await page.locator('#node-dialog-login-username').fill(options.login.username);
      await page.locator('#node-dialog-login-password').fill(options.login.password);
      await page.locator('#node-dialog-login-submit').click();
    }
    await page.waitForFunction(
      () => Boolean((window as unknown as { RED?: { workspaces?: { active(): string } } }).RED?.workspaces?.active()),
      undefined,
      { timeout: 30_000 },
    );
    await sidebarTabButton(page, 'media-spaces').waitFor({ state: 'attached' });
    const connected = browser;
    return {
      get nodeRed() {
        return nodeRed;
      },
      userDir,
      async restart() {
        const port = nodeRed.port;
        await nodeRed.stop();
        nodeRed = await startNodeRed({ userDir, env, port });
      },
      browser: connected,
      page,
      pageErrors,
      async close() {
        await Promise.all([connected.close().catch(() => undefined), nodeRed.stop()]);
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await nodeRed.stop();
    throw error;
  }
}

/** Below this height the tab lays itself out for a short pane (the container query in media-spaces-sidebar.html). */
export const SHORT_TAB_PX = 420;

/**
 * Opens the Media Spaces tab by its button in the sidebar, as a user does, with the sidebar's whole height:
 * where it opens in half a pane beside another tab (Node-RED 5, with Debug below), that tab's button hides it.
 */
export async function openSidebar(page: Page): Promise<void> {
  await showSidebarTab(page, 'media-spaces', '.ms-sidebar');
  if ((await tabSize(page)).height < SHORT_TAB_PX) {
    await sidebarTabButton(page, 'debug').click();
    await page.waitForFunction(
      (min) => (document.querySelector('.ms-sidebar')?.clientHeight ?? 0) >= min,
      SHORT_TAB_PX,
    );
  }
}

/** The Media Spaces tab's size on screen. */
export async function tabSize(page: Page): Promise<{ width: number; height: number }> {
  const box = await page.locator('.ms-sidebar').boundingBox();
  return { width: box?.width ?? 0, height: box?.height ?? 0 };
}

/** Drags the sidebar's separator to make it wide, as an operator who keeps it open all day would. */
export async function widenSidebar(page: Page, width = 820): Promise<void> {
  const separator = page.locator('#red-ui-sidebar-separator');
  const box = await separator.boundingBox();
  if (!box) throw new Error('the sidebar separator is not on screen');
  const viewport = page.viewportSize() ?? { width: 1600, height: 1000 };
  const x = box.x + box.width / 2;
  const y = box.y + box.height / 2;
  await page.mouse.move(x, y);
  await page.mouse.down();
  await page.mouse.move(viewport.width - width, y, { steps: 10 });
  await page.mouse.up();
}
