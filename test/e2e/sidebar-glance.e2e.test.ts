import type { Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSidebar, SHORT_TAB_PX, type SidebarStack, startSidebarStack, tabSize } from './support/sidebar-stack';
import { showSidebarTab } from './support/sidebar-tabs';
import { screenshot } from './support/stack';

/**
 * The Media Spaces tab at a glance beside a demo that records every minute:
 * the recent windows grouped by schedule (the demo's 29 windows cannot push a
 * user's two off the list), a filter per schedule (names set as text), and a
 * date axis in the week view in Node-RED 5's default pane (the top half of
 * the sidebar, with Debug below) and with the whole height. The schedules
 * are the test-only schedule node (test/e2e/fixtures/activity), which reports
 * past windows as a schedule does.
 */

const TAB = 'glancetab0000001';
const DEMO = 'glancedemo000001';
const STUDIO = 'glancestudio0001';
/** a user's schedule name holding markup: shown as text, never parsed */
const STUDIO_NAME = 'Studio <b>A</b>';
const DAY = /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun) \d{1,2}$/;
/**
 * The tab's wait for an answer, set in settings.js (20 s unless set): the request held unanswered
 * below is given up after this, not after the default's 20 s.
 */
const REQUEST_TIMEOUT_MS = 5_000;

function flows(): Record<string, unknown>[] {
  // 29 windows of 30 s in the last 29 minutes, each recorded and followed up
  const demoSlots = Array.from({ length: 29 }, (_, i) => ({
    windowId: 'demo',
    startMin: -(i + 1),
    durationMin: 0.5,
    outcome: { channel: 'created', job: { id: `job-${i}`, state: 'succeeded' } },
  }));
  const studioSlots = [
    { windowId: 'news', startMin: -180, durationMin: 60, outcome: { channel: 'created' } },
    { windowId: 'news', startMin: -20 * 60, durationMin: 60, outcome: { channel: 'created' } },
  ];
  const schedule = (id: string, name: string, y: number, windows: unknown[], slots: unknown[]) => ({
    id,
    type: 'media-spaces-test-schedule',
    z: TAB,
    name,
    windows: JSON.stringify(windows),
    slots: JSON.stringify(slots),
    paused: false,
    copies: 1,
    x: 200,
    y,
    wires: [[]],
  });
  return [
    { id: TAB, type: 'tab', label: 'glance', disabled: false, info: '' },
    schedule(
      DEMO,
      'Demo schedule',
      100,
      [{ id: 'demo', name: 'Demo recording', cron: '* * * * *', timezone: 'UTC', duration: 30 }],
      demoSlots,
    ),
    schedule(
      STUDIO,
      STUDIO_NAME,
      200,
      [{ id: 'news', name: 'Evening news', cron: '0 18 * * *', timezone: 'Europe/London', duration: 3600 }],
      studioSlots,
    ),
  ];
}

describe('Media Spaces sidebar at a glance', () => {
  let stack: SidebarStack;

  beforeAll(async () => {
    stack = await startSidebarStack('glance', {
      flows: flows(),
      settings: `'media-spaces-sidebar': { requestTimeout: ${REQUEST_TIMEOUT_MS} },`,
    });
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("has a date axis in the week view in Node-RED 5's default pane and with the whole height", async () => {
    const { page } = stack;
    // the tab as its button opens it: in Node-RED 5, the top half of the sidebar, Debug below
    await showSidebarTab(page, 'media-spaces', '.ms-sidebar');
    await page.locator('.ms-tl-row').first().waitFor();
    const heights: number[] = [];
    for (const pane of ['default', 'whole'] as const) {
      if (pane === 'whole') await openSidebar(page);
      heights.push((await tabSize(page)).height);
      await page.locator('.ms-view[data-view="7d"]').click();
      // drawn from the 24-hour answer until the week's arrives
      await page.locator('.ms-tl[data-drawn="7d"]').waitFor();
      const axis = page.locator('.ms-tl-axis');
      expect(await axis.isVisible(), pane).toBe(true);
      const days = await axis.locator('.ms-tl-date').evaluateAll((cells) =>
        cells.map((c) => {
          const box = c.getBoundingClientRect();
          return { text: c.textContent ?? '', whole: c.scrollWidth <= c.clientWidth, left: box.left, right: box.right };
        }),
      );
      const named = days.filter((d) => d.text !== '');
      // 24 hours back and 7 days ahead: seven whole days at least, each named whole
      expect(named.length, pane).toBeGreaterThanOrEqual(7);
      for (const d of named) {
        expect(d.text, pane).toMatch(DAY);
        expect(d.whole, `${pane}: ${d.text} is cut`).toBe(true);
      }
      for (let i = 1; i < days.length; i++) expect(days[i].left, pane).toBeGreaterThanOrEqual(days[i - 1].right - 1);
      if (pane === 'default') await screenshot(page, 'sidebar-week-default-pane.png', 'sidebar');
      await page.locator('.ms-view[data-view="24h"]').click();
    }
    // the first pass was the short layout (zone lanes hidden), the second the full one
    expect(heights[0]).toBeLessThan(SHORT_TAB_PX);
    expect(heights[1]).toBeGreaterThanOrEqual(SHORT_TAB_PX);
  });

  it("groups the recent windows by schedule: the demo's 29 do not bury the user's 2", async () => {
    const { page } = stack;
    await openSidebar(page);
    const studio = page.locator(`.ms-fl-windows .ms-fl-group[data-node="${STUDIO}"]`);
    await studio.locator('.ms-fl-item').nth(1).waitFor();
    expect(await studio.locator('.ms-fl-item').count()).toBe(2);
    expect(await studio.locator('.ms-fl-group-head').textContent()).toBe(STUDIO_NAME);
    const demo = page.locator(`.ms-fl-windows .ms-fl-group[data-node="${DEMO}"]`);
    expect(await demo.locator('.ms-fl-item').count()).toBe(5);
    expect(await demo.locator('.ms-fl-group-head').textContent()).toBe('Demo schedule (5 of 29)');
    // newest first within a group
    const starts = await demo
      .locator('.ms-fl-item')
      .evaluateAll((items) => items.map((i) => Number((i as HTMLElement).dataset.start)));
    expect(starts).toEqual([...starts].sort((a, b) => b - a));
    expect(await page.locator('.ms-fl-windows .ms-fl-head').textContent()).toBe('Recent windows (7 of 31)');
    // the user's rows are in view without scrolling the tab
    const body = await page.locator('.ms-body').boundingBox();
    const last = await studio.locator('.ms-fl-item').last().boundingBox();
    expect(body && last && last.y + last.height <= body.y + body.height).toBe(true);
  });

  it('filters by schedule: a select listing the schedules by name, as text', async () => {
    const { page } = stack;
    const filter = page.locator('.ms-toolbar select.ms-filter');
    const options = await filter
      .locator('option')
      .evaluateAll((list) => list.map((o) => [(o as HTMLOptionElement).value, o.textContent]));
    expect(options).toEqual([
      ['', 'All schedules'],
      [DEMO, 'Demo schedule'],
      [STUDIO, STUDIO_NAME],
    ]);
    expect(await filter.locator('b').count()).toBe(0);

    await filter.selectOption(STUDIO);
    await page.locator(`.ms-tl-row[data-node="${DEMO}"]`).waitFor({ state: 'detached' });
    expect(
      await page.locator('.ms-tl-row').evaluateAll((rows) => rows.map((r) => (r as HTMLElement).dataset.node)),
    ).toEqual([STUDIO]);
    expect(await page.locator(`.ms-fl-group[data-node="${DEMO}"]`).count()).toBe(0);
    expect(await page.locator('.ms-fl-windows .ms-fl-item').count()).toBe(2);
    // a render from the runtime (a new report) keeps the choice
    const renders = Number(await page.locator('.ms-sidebar').getAttribute('data-renders'));
    await fetch(`${stack.nodeRed.url}/media-spaces-test/slots/${DEMO}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify([
        { windowId: 'demo', start: Date.now() - 40_000, end: Date.now() - 10_000, outcome: { channel: 'created' } },
      ]),
    });
    await page.waitForFunction(
      (before) => Number(document.querySelector('.ms-sidebar')?.getAttribute('data-renders')) > before,
      renders,
    );
    expect(await filter.inputValue()).toBe(STUDIO);
    expect(await page.locator(`.ms-tl-row[data-node="${DEMO}"]`).count()).toBe(0);
    await screenshot(page, 'sidebar-filter.png', 'sidebar');

    await filter.selectOption('');
    await page.locator(`.ms-tl-row[data-node="${DEMO}"]`).waitFor();
    expect(await page.locator('.ms-tl-row').count()).toBe(2);
    expect(stack.pageErrors).toEqual([]);
  });

  it('gives up a request the runtime holds unanswered, says so, and draws again at the next change', async () => {
    const { page } = stack;
    const report = (start: number) =>
      fetch(`${stack.nodeRed.url}/media-spaces-test/slots/${STUDIO}`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify([{ windowId: 'news', start, end: start + 60_000, outcome: { channel: 'created' } }]),
      });
    const isSchedules = (url: URL) =>
      url.pathname.endsWith('/media-spaces/activity') && url.searchParams.get('part') === 'schedules';
    // the schedules request goes out and nothing ever comes back (a connection held across a restart)
    const held: Route[] = [];
    await page.route(isSchedules, (route) => {
      held.push(route);
    });
    const message = page.locator('.ms-sidebar .ms-message');
    await report(Date.now() - 7_200_000);
    await expect.poll(() => held.length).toBe(1);
    await expect
      .poll(() => message.textContent(), { timeout: REQUEST_TIMEOUT_MS + 10_000 })
      .toBe(`Activity unavailable: no answer within ${REQUEST_TIMEOUT_MS / 1000} s`);
    await page.unroute(isSchedules);
    // the next schedule change is fetched and drawn at once, not at the minute's poll
    const renders = Number(await page.locator('.ms-sidebar').getAttribute('data-renders'));
    await report(Date.now() - 5_400_000);
    await page.waitForFunction(
      (before) => Number(document.querySelector('.ms-sidebar')?.getAttribute('data-renders')) > before,
      renders,
    );
    await expect.poll(() => message.textContent()).toBe('');
    const studio = page.locator(`.ms-fl-windows .ms-fl-group[data-node="${STUDIO}"] .ms-fl-item`);
    await expect.poll(() => studio.count()).toBe(4);
    expect(stack.pageErrors).toEqual([]);
  });
});
