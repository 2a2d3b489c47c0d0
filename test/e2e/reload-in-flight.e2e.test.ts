import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deploy, importNodes } from './support/editor';
import { openSidebar } from './support/sidebar-stack';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * "Reload feed" while the Media Spaces tab draws the schedule's row again: the answer is held back (in the
 * browser, by the test) while the schedule is paused (its row's feed lines drawn anew) and while the toolbar's
 * filter takes the row away and brings it back. The line shown says "Reloading…" with its button disabled
 * meanwhile, and the answer, once it comes, is said on the line shown then, its button enabled again.
 */

const DESK = 'reloadflightdesk';
const OTHER = 'reloadflightothr';

let stack: Stack;

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

function calendar(file: string, uid: string, start: number): void {
  writeFileSync(
    file,
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//media-spaces//e2e//EN',
      'BEGIN:VEVENT',
      `UID:${uid}`,
      'DTSTAMP:20260101T000000Z',
      'SUMMARY:REC Desk update',
      `DTSTART:${stamp(start)}`,
      `DTEND:${stamp(start + 180_000)}`,
      'END:VEVENT',
      'END:VCALENDAR',
      '',
    ].join('\r\n'),
  );
}

beforeAll(async () => {
  stack = await startStack('reload-in-flight');
  const tomorrow = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000 + 19 * 3_600_000;
  const deskFile = join(stack.userDir, 'desk.ics');
  const otherFile = join(stack.userDir, 'other.ics');
  calendar(deskFile, 'desk@newsroom', tomorrow);
  calendar(otherFile, 'other@newsroom', tomorrow + 3_600_000);
  const schedule = (id: string, name: string, window: string, file: string, y: number) => ({
    id,
    type: 'media-spaces-schedule',
    name,
    source: 'editor',
    windows: [{ id: window, name: `${name} calendar`, ical: file, timezone: 'UTC' }],
    x: 220,
    y,
    wires: [[], [], []],
  });
  await importNodes(stack.page, [
    schedule(DESK, 'Desk', 'desk', deskFile, 100),
    schedule(OTHER, 'Other desk', 'other', otherFile, 200),
  ]);
  await stack.page.evaluate(() =>
    (window as unknown as { RED: { nodes: { dirty(d: boolean): void } } }).RED.nodes.dirty(true),
  );
  await deploy(stack.page);
});

afterAll(async () => {
  await stack?.close();
});

/** Holds the tab's reload requests until `release()`. */
/** The line drawn anew says "Reloading…" with its button off until the held answer is let go, then the answer. */
async function answeredOnTheLineShown(line: Locator, hold: { release: () => Promise<void> }): Promise<void> {
  expect(await line.locator('.ms-tl-feed-result').textContent()).toBe('Reloading…');
  expect(await line.locator('.ms-tl-reload').isDisabled()).toBe(true);
  await hold.release();
  await expect
    .poll(() => line.locator('.ms-tl-feed-result').textContent(), { timeout: 20_000 })
    .toBe('1 occurrence planned · no problems');
  expect(await line.locator('.ms-tl-reload').isDisabled()).toBe(false);
}

async function holdReloads(): Promise<{ held: () => number; release: () => Promise<void> }> {
  const waiting: Route[] = [];
  await stack.page.route('**/media-spaces/schedules/*/windows/*/reload', (route) => {
    waiting.push(route);
  });
  return {
    held: () => waiting.length,
    async release() {
      for (const route of waiting.splice(0)) await route.continue();
      await stack.page.unroute('**/media-spaces/schedules/*/windows/*/reload');
    },
  };
}

describe('"Reload feed" answered after the row was drawn again', () => {
  it('is said on the line shown, after a pause drew the feed lines anew', async () => {
    const { page } = stack;
    await openSidebar(page);
    const row = page.locator(`.ms-tl-row[data-node="${DESK}"]`);
    const line = row.locator('.ms-tl-feed[data-window="desk"]');
    await line.waitFor({ timeout: 20_000 });
    const hold = await holdReloads();
    await line.locator('.ms-tl-reload').click();
    await expect.poll(hold.held).toBe(1);
    expect(await line.locator('.ms-tl-feed-result').textContent()).toBe('Reloading…');
    expect(await line.locator('.ms-tl-reload').isDisabled()).toBe(true);
    // a pause changes the row's head: its feed lines are drawn anew while the answer is awaited
    const before = await line.elementHandle();
    await row.locator('.ms-act-pause').click();
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    await page.locator(`.ms-tl-row.ms-paused[data-node="${DESK}"]`).waitFor({ timeout: 20_000 });
    expect(await before?.evaluate((el) => el.isConnected)).toBe(false);
    await answeredOnTheLineShown(line, hold);
    await row.locator('.ms-act-resume').click();
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    await page.locator(`.ms-tl-row[data-node="${DESK}"]:not(.ms-paused)`).waitFor({ timeout: 20_000 });
    expect(await line.locator('.ms-tl-feed-result').textContent()).toBe('1 occurrence planned · no problems');
    expect(stack.pageErrors).toEqual([]);
  });

  it('is said on the line shown, after the toolbar filter took the row away and brought it back', async () => {
    const { page } = stack;
    const line = page.locator(`.ms-tl-row[data-node="${OTHER}"] .ms-tl-feed[data-window="other"]`);
    const hold = await holdReloads();
    await line.locator('.ms-tl-reload').click();
    await expect.poll(hold.held).toBe(1);
    await page.locator('.ms-filter').selectOption(DESK);
    await expect.poll(() => line.count()).toBe(0);
    await page.locator('.ms-filter').selectOption('');
    await line.waitFor({ timeout: 10_000 });
    await answeredOnTheLineShown(line, hold);
    await screenshot(page, 'sidebar-reload-after-render.png', 'sidebar');
    expect(stack.pageErrors).toEqual([]);
  });
});
