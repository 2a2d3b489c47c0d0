import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNode, deploy, importNodes, openNode, waitForStatus } from './support/editor';
import { openSidebar } from './support/sidebar-stack';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * A slot is named by its programme wherever the editor names it: two schedules read calendars whose events
 * are on now. The node's status and the "Windows in progress" rows of the Media Spaces tab say the event's
 * title; a long title is cut on screen with an ellipsis, its row's tooltip holding it whole.
 */

const NEWSROOM = 'slotnamesnews001';
const LATE = 'slotnameslate001';
const DESK = 'slotnamesdesk001';
/** tomorrow 19:15:30–19:18:30 UTC: a programme that starts and ends on the half minute */
const TOMORROW = Math.floor(Date.now() / 86_400_000) * 86_400_000 + 86_400_000;
const DESK_START = TOMORROW + (19 * 3600 + 15 * 60 + 30) * 1000;
const LONG_TITLE =
  'REC The late desk: the evening bulletin with the full regional round-up, the markets and the weather for the week ahead';

let stack: Stack;
let deskFile = '';

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');

const vevent = (uid: string, summary: string, start: number, end?: number) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260101T000000Z',
  `SUMMARY:${summary}`,
  `DTSTART:${stamp(start)}`,
  ...(end === undefined ? [] : [`DTEND:${stamp(end)}`]),
  'END:VEVENT',
];

function calendar(file: string, uid: string, summary: string, start: number, end: number, more: string[] = []): void {
  writeFileSync(
    file,
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//media-spaces//e2e//EN',
      ...vevent(uid, summary, start, end),
      ...more,
      'END:VCALENDAR',
      '',
    ].join('\r\n'),
  );
}

const yaml = (id: string, name: string, file: string) =>
  ['timezone: UTC', 'windows:', `  - id: ${id}`, `    name: ${name}`, `    ical: ${JSON.stringify(file)}`, ''].join(
    '\n',
  );

beforeAll(async () => {
  stack = await startStack('slot-names');
  const now = Math.floor(Date.now() / 1000) * 1000;
  const newsFile = join(stack.userDir, 'newsroom.ics');
  const lateFile = join(stack.userDir, 'late.ics');
  calendar(newsFile, 'headlines@newsroom', 'REC Headlines', now - 60_000, now + 3_600_000);
  calendar(lateFile, 'late@newsroom', LONG_TITLE, now - 30_000, now + 3_000_000);
  deskFile = join(stack.userDir, 'desk.ics');
  calendar(deskFile, 'desk@newsroom', 'REC Desk update', DESK_START, DESK_START + 180_000);
  const schedule = (id: string, name: string, y: number, doc: string) => ({
    id,
    type: 'media-spaces-schedule',
    name,
    source: 'yaml',
    yaml: doc,
    x: 220,
    y,
    wires: [[], [], []],
  });
  await importNodes(stack.page, [
    schedule(NEWSROOM, 'Newsroom recordings', 100, yaml('newsroom', 'Newsroom calendar', newsFile)),
    schedule(LATE, 'Late desk', 200, yaml('late', 'Late calendar', lateFile)),
    {
      id: DESK,
      type: 'media-spaces-schedule',
      name: 'Desk',
      source: 'editor',
      windows: [{ id: 'desk', name: 'Desk calendar', ical: deskFile, timezone: 'UTC' }],
      x: 220,
      y: 300,
      wires: [[], [], []],
    },
  ]);
  // setup: an import alone leaves Deploy disabled; a user's first edit would enable it
  await stack.page.evaluate(() =>
    (window as unknown as { RED: { nodes: { dirty(d: boolean): void } } }).RED.nodes.dirty(true),
  );
  await deploy(stack.page);
});

afterAll(async () => {
  await stack?.close();
});

describe("a calendar event's title", () => {
  it("is in the schedule node's status while its window is open", async () => {
    const status = await waitForStatus(stack.page, NEWSROOM, (s) => s.text.includes('REC Headlines'));
    expect(status.text).toMatch(/(starting|window open): REC Headlines until \d\d:\d\d/);
    expect(status.text).not.toContain('Newsroom calendar');
  });

  it('names the rows of windows in progress, a long one cut on screen and whole in its tooltip', async () => {
    await openSidebar(stack.page);
    const rows = stack.page.locator('.ms-fl-recording .ms-fl-item');
    await expect.poll(() => rows.count(), { timeout: 20_000 }).toBe(2);
    const news = stack.page.locator(`.ms-fl-recording .ms-fl-item[data-node="${NEWSROOM}"] .ms-fl-title`);
    expect(await news.textContent()).toBe('REC Headlines · Newsroom calendar · Newsroom recordings');
    const late = stack.page.locator(`.ms-fl-recording .ms-fl-item[data-node="${LATE}"] .ms-fl-title`);
    const whole = `${LONG_TITLE} · Late calendar · Late desk`;
    expect(await late.textContent()).toBe(whole);
    expect(await late.getAttribute('title')).toBe(whole);
    const cut = await late.evaluate((e) => ({
      overflow: getComputedStyle(e).textOverflow,
      lines: Math.round(e.getBoundingClientRect().height / Number.parseFloat(getComputedStyle(e).lineHeight || '16')),
      cut: e.scrollWidth > e.clientWidth,
    }));
    expect(cut).toEqual({ overflow: 'ellipsis', lines: 1, cut: true });
    // the timeline's bar names the programme first
    const bar = stack.page.locator(`.ms-tl-row .ms-tl-bar[data-window="newsroom"]`).first();
    expect(await bar.getAttribute('title')).toMatch(/^REC Headlines · Newsroom calendar /);
    await screenshot(stack.page, 'sidebar-titles.png', 'sidebar');
    expect(stack.pageErrors).toEqual([]);
  });

  it('lists its times in Test feed with their seconds, and the preview says the events keep their own length', async () => {
    const { page } = stack;
    await openNode(page, DESK);
    const row = page.locator('#node-input-windows-container li').first();
    await row.locator('.ms-w-feed-test').click();
    const items = row.locator('.ms-w-feed-occurrence');
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(1);
    const day = new Date(TOMORROW).toISOString().slice(0, 10);
    const text = (await items.first().textContent()) ?? '';
    expect(text).toContain(`REC Desk update ${day} 19:15:30 +00:00 – ${day} 19:18:30 +00:00`);
    expect(text).toContain(`programme ${day} 19:15:30 +00:00 – ${day} 19:18:30 +00:00`);
    const preview = page.locator('#ms-schedule-preview .ms-schedule-preview-what').first();
    await expect.poll(() => preview.textContent(), { timeout: 10_000 }).toMatch(/^the events of a calendar/);
    expect(await preview.textContent()).toBe(
      'the events of a calendar (Test feed lists the next ones), UTC, each event as long as the calendar says (1h when it gives no end); 1h for a manual start',
    );
    await screenshot(page, 'schedule-feed-seconds.png', 'tray');
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });

  it('"Reload feed" fetches a calendar window\'s feed now and says what it read where it was pressed', async () => {
    const { page } = stack;
    await openSidebar(page);
    const line = page.locator(`.ms-tl-row[data-node="${DESK}"] .ms-tl-feed[data-window="desk"]`);
    expect(await line.locator('.ms-tl-feed-name').textContent()).toBe('Desk calendar');
    // the cron-less calendar windows have the button; nothing else does
    expect(await page.locator('.ms-tl-reload').count()).toBe(3);
    await line.locator('.ms-tl-reload').click();
    const result = line.locator('.ms-tl-feed-result');
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toBe('1 occurrence planned · no problems');
    // the calendar gains an event, and one whose DTEND is before its start, which the reader leaves out
    calendar(deskFile, 'desk@newsroom', 'REC Desk update', DESK_START, DESK_START + 180_000, [
      ...vevent('late@desk', 'REC Desk late update', DESK_START + 3_600_000, DESK_START + 3_780_000),
      ...vevent('open@desk', 'REC Open end', DESK_START + 7_200_000, DESK_START + 7_100_000),
    ]);
    await line.locator('.ms-tl-reload').click();
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toMatch(/^2 occurrences planned · 1 problem: /);
    expect(await result.textContent()).toContain('REC Open end');
    expect(await result.evaluate((e) => e.classList.contains('ms-failed'))).toBe(false);
    // the result stays under its button through the tab's next renders
    await page.waitForTimeout(1500);
    expect(await result.textContent()).toMatch(/^2 occurrences planned/);
    await screenshot(page, 'sidebar-reload-feed.png', 'sidebar');
    expect(stack.pageErrors).toEqual([]);
  });
});
