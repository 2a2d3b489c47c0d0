import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, importNodes, openNode } from './support/editor';
import { type Stack, screenshot, simulatorServer, startStack } from './support/stack';

/**
 * Room for a window: each window's form in the schedule dialog is shown whole, the dialog being the one
 * scroll area. At 1400×900 and at 1024×768, for a window of each kind (cron with channel and follow-up, a
 * calendar, a programme guide, messages), every field of the form is brought into view by scrolling the
 * dialog and lies whole inside the viewport and the dialog, with no box between them that scrolls or cuts it.
 * Each window's head names it and folds its form away; the YAML view still takes the list's windows.
 * Screenshots go to test/e2e/screenshots-tmp (docs/screenshots with UPDATE_SCREENSHOTS=1).
 */

const SERVER = 'e2e0winroom0srv1';
const SCHEDULE = 'e2e0winroom0sch1';
const TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000006';

const WINDOWS = [
  {
    id: 'evening-news',
    name: 'Evening news',
    cron: '0 18 * * mon-fri',
    duration: '1h',
    timezone: 'Europe/London',
    channel: { name: 'News {{slot.date}}', tags: ['news'] },
    followup: { workflow_id: TRANSCODE, job_name: 'Proxy of {{channel.name}}' },
  },
  {
    id: 'newsroom',
    name: 'Newsroom calendar',
    ical: 'https://calendar.example/newsroom.ics',
    match: { title: '^REC ' },
    padding: { before: '1m', after: '2m' },
    refresh: '10m',
    on_cancel: 'stop',
    default_duration: '30m',
    followup: { workflow_id: TRANSCODE },
  },
  {
    id: 'guide',
    name: 'Evening guide',
    xmltv: 'https://guide.example/epg.xml',
    match: {
      title: 'News',
      channel: ['bbc1.uk', 'bbc2.uk'],
      categories: ['News'],
      days: ['mon', 'fri'],
      between: '17:00-21:00',
      new_only: true,
      duplicates: 'once',
    },
    padding: { before: '2m', after: '5m' },
    sources: { 'bbc1.uk': 'src-1', 'bbc2.uk': 'src-2' },
  },
  { id: 'desk', name: 'Desk', messages: true, padding: { after: '30s' } },
];
const KINDS = ['cron', 'ical', 'xmltv', 'messages'] as const;

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('window-room');
  await importNodes(stack.page, [
    simulatorServer(stack, SERVER),
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Studio B',
      source: 'editor',
      windows: WINDOWS,
      server: SERVER,
      timezone: 'Europe/London',
      x: 200,
      y: 120,
      wires: [[], [], []],
    },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

const rows = () => stack.page.locator('#node-input-windows-container > li');

interface Placement {
  fields: number;
  /** fields not whole in the viewport, the dialog, or a box between them, once scrolled to */
  cut: string[];
  /** boxes other than the dialog's that scrolled to show a field */
  scrolled: string[];
  /** the height of the window's form */
  height: number;
}

/**
 * Every visible field of a window's form, scrolled to as the browser scrolls to a focused field: its box
 * inside the viewport, inside the dialog's scroll area, and inside every box between them that clips; and no
 * box but the dialog's scroll area scrolled.
 */
async function placement(page: Page, index: number): Promise<Placement> {
  return page.evaluate((i) => {
    const item = document.querySelectorAll('#node-input-windows-container > li')[i] as HTMLElement;
    // the edit dialog's scroll area: the tray's content (its Properties tab)
    const tray = item.closest('.red-ui-tray-content') as HTMLElement;
    const fields = [...item.querySelectorAll<HTMLElement>('input, select, textarea, button')].filter(
      (el) => el.getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden',
    );
    const name = (el: HTMLElement) =>
      `${el.tagName.toLowerCase()}.${[...el.classList].join('.')}${el.getAttribute('data-day') ? `[${el.getAttribute('data-day')}]` : ''}`;
    const inside = (r: DOMRect, box: { top: number; left: number; bottom: number; right: number }) =>
      r.top >= box.top - 0.5 && r.left >= box.left - 0.5 && r.bottom <= box.bottom + 0.5 && r.right <= box.right + 0.5;
    const cut: string[] = [];
    const scrolled = new Set<string>();
    for (const field of fields) {
      field.scrollIntoView({ block: 'nearest', inline: 'nearest' });
      const r = field.getBoundingClientRect();
      const viewport = { top: 0, left: 0, bottom: window.innerHeight, right: window.innerWidth };
      if (!inside(r, viewport)) cut.push(`${name(field)} outside the viewport`);
      if (!inside(r, tray.getBoundingClientRect())) cut.push(`${name(field)} outside the dialog`);
      for (let up = field.parentElement; up && up !== tray; up = up.parentElement) {
        const style = getComputedStyle(up);
        const clips = style.overflowX !== 'visible' || style.overflowY !== 'visible';
        if (clips && !inside(r, up.getBoundingClientRect())) cut.push(`${name(field)} cut by ${up.className}`);
        if (up.scrollTop !== 0 || up.scrollLeft !== 0) scrolled.add(up.className || up.tagName);
      }
    }
    // nothing of the form reaches past the dialog's sides (the dialog would scroll sideways and cut the labels)
    for (let up: Element | null = tray; up; up = up.parentElement)
      if (up.scrollLeft !== 0) scrolled.add(`${up.className || up.tagName}, sideways`);
    const edge = tray.getBoundingClientRect();
    for (const el of item.querySelectorAll<HTMLElement>('*')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.right > edge.right + 0.5 || r.left < edge.left - 0.5))
        cut.push(`${name(el)} wider than the dialog`);
    }
    return { fields: fields.length, cut, scrolled: [...scrolled], height: item.getBoundingClientRect().height };
  }, index);
}

async function checkEveryKind(size: { width: number; height: number }): Promise<void> {
  const { page } = stack;
  await page.setViewportSize(size);
  await openNode(page, SCHEDULE);
  await rows().nth(3).locator('.ms-w-id').waitFor({ state: 'attached', timeout: 10_000 });
  // the follow-up's declared inputs are fields too: wait for the workflow's form
  await expect
    .poll(() => rows().nth(0).locator('.ms-w-fu-inputs input').filter({ visible: true }).count(), {
      timeout: 15_000,
    })
    .toBeGreaterThan(0);
  // the list is no scroll box of its own
  const list = await page
    .locator('.red-ui-editableList-container')
    .filter({ has: page.locator('#node-input-windows-container') })
    .evaluate((el) => ({ client: el.clientHeight, scroll: el.scrollHeight, overflow: getComputedStyle(el).overflowY }));
  expect(list.scroll).toBeLessThanOrEqual(list.client + 1);
  for (const [i, kind] of KINDS.entries()) {
    expect(await rows().nth(i).locator('.ms-w-kind').inputValue()).toBe(kind);
    const shown = await placement(page, i);
    expect(shown.cut, `${kind} at ${size.width}×${size.height}`).toEqual([]);
    expect(shown.scrolled, `${kind} at ${size.width}×${size.height}`).toEqual([]);
    // the kinds' own fields are among those checked
    const own: Record<(typeof KINDS)[number], string[]> = {
      cron: ['.ms-w-time', '.ms-w-cron', '.ms-w-duration', '.ms-w-channel', '.ms-w-fu-search', '.ms-w-followup'],
      ical: ['.ms-w-feed', '.ms-w-match-title', '.ms-w-padding-after', '.ms-w-default-duration', '.ms-w-feed-test'],
      xmltv: ['.ms-w-match-channel', '.ms-w-match-between', '.ms-w-match-duplicates', '.ms-w-sources'],
      messages: ['.ms-w-padding-before', '.ms-w-padding-after', '.ms-w-followup'],
    };
    for (const cls of own[kind]) expect(await rows().nth(i).locator(cls).first().isVisible(), cls).toBe(true);
    expect(shown.fields).toBeGreaterThan(10);
    // the window's top in view, for the screenshot of its form
    await rows()
      .nth(i)
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, `window-form-${kind}-${size.width}x${size.height}.png`, 'tray');
  }
  await closeNode(page, 'cancel');
}

describe("a window's form has the room it needs", () => {
  it('at 1400×900 every field of each kind of window is whole on screen, the dialog the one scroll area', async () => {
    await checkEveryKind({ width: 1400, height: 900 });
    // a calendar window's form is far taller than the list box it used to be cut into
    expect(stack.pageErrors).toEqual([]);
  });

  it('at 1024×768 too', async () => {
    await checkEveryKind({ width: 1024, height: 768 });
    expect(stack.pageErrors).toEqual([]);
  });

  it("each window's head names it and folds its form away and back", async () => {
    const { page } = stack;
    await page.setViewportSize({ width: 1400, height: 900 });
    await openNode(page, SCHEDULE);
    const first = rows().nth(0);
    await first.locator('.ms-w-id').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await first.locator('.ms-w-summary').textContent()).toBe(
      'evening-news · Evening news · cron 0 18 * * mon-fri',
    );
    expect(await rows().nth(1).locator('.ms-w-summary').textContent()).toMatch(/^newsroom · Newsroom calendar · /);
    const tall = (await first.boundingBox())?.height ?? 0;
    await first.locator('.ms-w-toggle').click();
    expect(await first.locator('.ms-w-id').isVisible()).toBe(false);
    expect(await first.locator('.ms-w-toggle').getAttribute('aria-expanded')).toBe('false');
    expect((await first.boundingBox())?.height ?? 0).toBeLessThan(60);
    expect(tall).toBeGreaterThan(600);
    // the summary follows the form
    await first.locator('.ms-w-toggle').click();
    await first.locator('.ms-w-name').fill('Evening bulletin');
    expect(await first.locator('.ms-w-summary').textContent()).toBe(
      'evening-news · Evening bulletin · cron 0 18 * * mon-fri',
    );
    // a folded window is still saved whole: to YAML and back
    await first.locator('.ms-w-toggle').click();
    await page.locator('#node-input-source').selectOption('yaml');
    const yaml = () =>
      page.evaluate(
        (id) =>
          (
            window as unknown as { RED: { nodes: { node(id: string): { yamlEditor?: { getValue(): string } } } } }
          ).RED.nodes
            .node(id)
            .yamlEditor?.getValue() ?? '',
        SCHEDULE,
      );
    await expect.poll(yaml, { timeout: 10_000 }).toContain('Evening bulletin');
    const text = await yaml();
    for (const id of ['evening-news', 'newsroom', 'guide', 'desk']) expect(text).toContain(`id: ${id}`);
    expect(text).toContain('job_name: Proxy of {{channel.name}}');
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    await expect.poll(() => rows().count()).toBe(4);
    await expect.poll(() => rows().nth(2).locator('.ms-w-match-between').inputValue()).toBe('17:00-21:00');
    // the calendar window's form, for the README
    await rows()
      .nth(1)
      .evaluate((el) => el.scrollIntoView({ block: 'start' }));
    await screenshot(page, 'schedule-window-form.png', 'tray');
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });
});
