// The packaging check's browser smoke test: the editor of a real Node-RED
// (4 or 5) with the installed package, driven in Debian's chromium as a user
// drives it: nodes deployed with the Deploy button, an inject pressed, the
// line in the Debug sidebar, the Media Spaces tab opened by its button, and a
// node's edit dialog opened by a double-click.
import { chromium } from 'playwright-core';
import { adminApi, CHROMIUM_ARGS, CHROMIUM_PATH, waitFor } from './e2e-lib.mjs';
import { showSidebarTab } from './editor-tabs.mjs';

/**
 * flow: the list-workflows example, deployable (config node with credentials). The tab and the
 * config node are deployed through the admin API (credentials cannot be typed into an import);
 * the inject, list-workflows and debug nodes are imported through the editor's menu and deployed from it.
 */
export async function browserSmoke(label, url, flow, check) {
  const setup = flow.filter((n) => n.type === 'tab' || n.type === 'media-spaces-config');
  const tab = setup.find((n) => n.type === 'tab');
  const onPage = flow.filter((n) => !setup.includes(n)).map(({ credentials: _, ...n }) => ({ ...n, z: tab.id }));
  const inject = onPage.find((n) => n.type === 'inject');
  const list = onPage.find((n) => n.type === 'media-spaces-list-workflows');
  const deployed = await adminApi(url, 'POST', '/flows', setup, { 'Node-RED-Deployment-Type': 'full' });
  check(`${label} browser: setup flow deployed`, deployed.status === 200 || deployed.status === 204);

  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(url);
    await page.waitForFunction(() => Boolean(window.RED?.workspaces?.active()), undefined, { timeout: 60_000 });
    await page.locator('.red-ui-palette-node[data-palette-type="media-spaces-list-workflows"]').waitFor();
    await page.addStyleTag({ content: '#red-ui-notifications { pointer-events: none !important; }' });
    // Menu > Import, the flow's JSON pasted, Import; the nodes follow the mouse until a click puts them down
    await page.locator('#red-ui-header-button-sidemenu').click();
    await page.locator('#menu-item-import').click();
    const text = page.locator('#red-ui-clipboard-dialog-import-text');
    await text.fill(JSON.stringify(onPage));
    await text.press('End'); // the dialog checks the JSON on keyup
    await page.locator('#red-ui-clipboard-dialog-ok').click();
    await page.mouse.move(500, 300, { steps: 5 });
    await page.mouse.click(500, 300);
    await page.locator(`g.red-ui-flow-node-group[id="${inject.id}"]`).waitFor();
    const runtimeFlows = async () => (await adminApi(url, 'GET', '/flows')).json;
    await page.locator('#red-ui-header-button-deploy:not(.disabled)').click();
    await page.locator('#red-ui-header-button-deploy.disabled').waitFor({ timeout: 20_000 });
    const running = await waitFor(
      async () => (await runtimeFlows()).some((n) => n.id === inject.id) && (await runtimeFlows()),
      { what: 'the deployed nodes', timeoutMs: 20_000 },
    ).catch(() => []);
    check(
      `${label} browser: the Deploy button deploys the imported nodes`,
      running.some((n) => n.id === list.id && n.z === tab.id),
    );

    await showSidebarTab(page, 'debug', '.red-ui-debug-content');
    await page.locator(`g.red-ui-flow-node-group[id="${inject.id}"] .red-ui-flow-node-button`).click();
    let texts = [];
    const line = await waitFor(
      async () => {
        texts = await page.locator('.red-ui-debug-content .red-ui-debug-msg').allTextContents();
        return texts.find((t) => t.includes('active workflows'));
      },
      { what: 'a Debug line', timeoutMs: 20_000 },
    ).catch(() => undefined);
    check(
      `${label} browser: the inject's message reaches the Debug sidebar`,
      Boolean(line),
      (line ?? `Debug shows ${JSON.stringify(texts)}`).slice(0, 300),
    );

    await showSidebarTab(page, 'media-spaces', '.ms-sidebar');
    check(`${label} browser: the Media Spaces tab opens by its button`, await page.locator('.ms-sidebar').isVisible());

    await page.locator(`g.red-ui-flow-node-group[id="${list.id}"] rect.red-ui-flow-node`).dblclick();
    const dialog = page.locator('#node-dialog-ok');
    await dialog.waitFor({ state: 'visible', timeout: 20_000 });
    const server = await page.locator('#node-input-server').inputValue();
    check(
      `${label} browser: the list-workflows edit dialog opens with its config node`,
      server === list.server,
      server,
    );
    await page.locator('#node-dialog-cancel').click();
    check(`${label} browser: no errors in the page`, pageErrors.length === 0, pageErrors.slice(0, 5).join(' | '));
  } finally {
    await browser.close();
  }
}
