// The packaging check's browser smoke test: the editor of a real Node-RED
// (4 or 5) with the installed package, driven in Debian's chromium as a user
// drives it: nodes deployed with the Deploy button, an inject pressed, the
// line in the Debug sidebar, the Media Spaces tab opened by its button (a
// schedule's row with its title, the toolbar's filter, "Reload feed" and its
// result), a node's edit dialog opened by a double-click, and the schedule's
// dialog with each window's form whole (the dialog the one scroll area) and
// folded by its head. Any error in the page's console fails it.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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
  const schedule = smokeSchedule(tab.id);
  onPage.push(schedule);
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
    await sidebarSmoke(label, page, schedule, check);

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
    await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
    await scheduleDialogSmoke(label, page, schedule, check);
    check(`${label} browser: no errors in the page`, pageErrors.length === 0, pageErrors.slice(0, 5).join(' | '));
  } finally {
    await browser.close();
  }
}

/** A schedule of a cron window and a calendar window (an event tomorrow in a file: nothing records). */
function smokeSchedule(z) {
  const start = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000 + 19 * 3_600_000;
  const stamp = (ms) =>
    new Date(ms)
      .toISOString()
      .replace(/[-:]/g, '')
      .replace(/\.\d{3}/, '');
  const file = join(mkdtempSync(join(tmpdir(), 'ms-smoke-')), 'desk.ics');
  const event = ['BEGIN:VEVENT', 'UID:desk@smoke', 'DTSTAMP:20260101T000000Z', 'SUMMARY:REC Desk update'];
  writeFileSync(
    file,
    ['BEGIN:VCALENDAR', 'VERSION:2.0', 'PRODID:-//media-spaces//smoke//EN', ...event, `DTSTART:${stamp(start)}`]
      .concat([`DTEND:${stamp(start + 180_000)}`, 'END:VEVENT', 'END:VCALENDAR', ''])
      .join('\r\n'),
  );
  return {
    id: 'packcheck0smoke1',
    type: 'media-spaces-schedule',
    z,
    name: 'Smoke desk',
    source: 'editor',
    windows: [
      { id: 'evening', name: 'Evening news', cron: '0 3 * * *', duration: '1h', timezone: 'UTC' },
      { id: 'desk', name: 'Desk calendar', ical: file, timezone: 'UTC', padding: { before: '1m' } },
    ],
    x: 300,
    y: 220,
    wires: [[], [], []],
  };
}

/** The tab's row of the schedule (its name), the toolbar's filter offering it, Reload feed and its result. */
async function sidebarSmoke(label, page, schedule, check) {
  const row = page.locator(`.ms-tl-row[data-node="${schedule.id}"]`);
  const shown = await row
    .waitFor({ timeout: 20_000 })
    .then(() => true)
    .catch(() => false);
  check(
    `${label} browser: the Media Spaces tab shows the schedule's row by its name`,
    shown && (await row.locator('.ms-tl-title').textContent()) === schedule.name,
  );
  const offered = await page.locator(`.ms-filter option[value="${schedule.id}"]`).count();
  check(`${label} browser: the toolbar's filter offers the schedule`, offered === 1);
  const line = row.locator('.ms-tl-feed[data-window="desk"]');
  let said = '';
  if (shown) {
    await line.locator('.ms-tl-reload').click();
    said = await waitFor(
      async () => {
        const text = (await line.locator('.ms-tl-feed-result').textContent()) ?? '';
        return text && text !== 'Reloading…' ? text : undefined;
      },
      { what: 'the reload result', timeoutMs: 20_000 },
    ).catch(() => '');
  }
  check(
    `${label} browser: "Reload feed" of the calendar window says what it read`,
    said === '1 occurrence planned · no problems',
    said,
  );
}

/**
 * The schedule's dialog by a double-click: each window's form shown whole (the list is no scroll box: the
 * calendar window's Test feed is reached by scrolling the dialog), its head naming it and folding it.
 */
async function scheduleDialogSmoke(label, page, schedule, check) {
  await page.locator(`g.red-ui-flow-node-group[id="${schedule.id}"] rect.red-ui-flow-node`).dblclick();
  await page.locator('#node-dialog-ok').waitFor({ state: 'visible', timeout: 20_000 });
  const rows = page.locator('#node-input-windows-container > li');
  const opened = await rows
    .nth(1)
    .locator('.ms-w-feed-test')
    .waitFor({ state: 'visible', timeout: 20_000 })
    .then(() => true)
    .catch(() => false);
  const room = await page
    .locator('.red-ui-editableList-container')
    .filter({ has: page.locator('#node-input-windows-container') })
    .evaluate((el) => el.scrollHeight <= el.clientHeight + 1 && el.scrollTop === 0)
    .catch(() => false);
  await rows.nth(1).locator('.ms-w-feed-test').scrollIntoViewIfNeeded();
  const reached = await rows
    .nth(1)
    .locator('.ms-w-feed-test')
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return r.top >= 0 && r.bottom <= window.innerHeight;
    });
  check(
    `${label} browser: the schedule's dialog shows each window's form whole, the dialog scrolling to its last fields`,
    opened && room && reached,
    JSON.stringify({ opened, room, reached }),
  );
  const summary = (await rows.nth(0).locator('.ms-w-summary').textContent()) ?? '';
  await rows.nth(0).locator('.ms-w-toggle').click();
  const folded = !(await rows.nth(0).locator('.ms-w-id').isVisible());
  await rows.nth(0).locator('.ms-w-toggle').click();
  const unfolded = await rows.nth(0).locator('.ms-w-id').isVisible();
  check(
    `${label} browser: a window's head names it and folds its form`,
    summary === 'evening · Evening news · cron 0 3 * * *' && folded && unfolded,
    summary,
  );
  await page.locator('#node-dialog-cancel').click();
  await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
}
