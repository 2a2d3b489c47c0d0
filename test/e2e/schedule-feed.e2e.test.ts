import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { formatLocalIso } from '../../lib/schedule/tz';
import { closeAllTrays, closeNode, deploy, importNodes, openNode } from './support/editor';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * A window that records from a calendar, set up in the schedule dialog as an
 * operator does it: "calendar" picked as the window's source, a calendar file
 * typed as its address with a title rule and padding, "Test feed" lists the
 * matching events with their padded times in the window's zone and the
 * conflict between two of them. Kept as a private address, the address goes
 * into the node's credential: the exported flow and the deployed flows never
 * hold it, and the deployed node tests its own window with it.
 */

const SCHEDULE = 'e2e0schedfeed001';
const GUIDE_SCHEDULE = 'e2e0schedguide01';
const GUIDE_YAML = [
  'windows:',
  '  - id: doctor-who',
  '    xmltv: /data/guide.xml.gz',
  '    match:',
  '      channel: [bbc1.uk, bbc1hd.uk]',
  '      title: ^Doctor Who$',
  '      days: [sat]',
  '      between: 17:00-21:00',
  '      new_only: true',
  '    padding:',
  '      before: 1m',
  '      after: 10m',
  '    sources:',
  '      bbc1.uk: live-1',
  '      bbc1hd.uk: live-2',
  '    rerecord: { within: 3d }',
  '    at_end: keep',
  '',
].join('\n');
const ZONE = 'Europe/Paris';
const HOUR = 3600_000;
/** the day after tomorrow 00:00 UTC: every event is ahead whatever the hour the test runs */
const DAY = Math.ceil(Date.now() / (24 * HOUR)) * 24 * HOUR + 24 * HOUR;

let stack: Stack;
let feedFile = '';

const stamp = (ms: number) =>
  new Date(ms)
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
const event = (uid: string, summary: string, startH: number, endH: number) => [
  'BEGIN:VEVENT',
  `UID:${uid}`,
  'DTSTAMP:20260101T000000Z',
  `SUMMARY:${summary}`,
  `DTSTART:${stamp(DAY + startH * HOUR)}`,
  `DTEND:${stamp(DAY + endH * HOUR)}`,
  'END:VEVENT',
];

beforeAll(async () => {
  stack = await startStack('schedule-feed');
  const dir = join(stack.userDir, 'feeds-private-4c1d');
  mkdirSync(dir, { recursive: true });
  feedFile = join(dir, 'studio.ics');
  writeFileSync(
    feedFile,
    [
      'BEGIN:VCALENDAR',
      'VERSION:2.0',
      'PRODID:-//media-spaces//e2e//EN',
      ...event('news@studio', 'REC Morning news', 10, 11),
      ...event('talk@studio', 'REC Interview', 10.5, 11.5),
      ...event('lunch@studio', 'Lunch', 12, 13),
      'END:VCALENDAR',
      '',
    ].join('\r\n'),
  );
  await importNodes(stack.page, [
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Studio calendar',
      source: 'editor',
      windows: [{ id: 'studio', cron: '0 18 * * mon-fri', duration: '1h' }],
      x: 200,
      y: 120,
      wires: [[], [], []],
    },
    {
      id: GUIDE_SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Guide',
      source: 'yaml',
      yaml: GUIDE_YAML,
      x: 200,
      y: 220,
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

const row = () => stack.page.locator('#node-input-windows-container li').first();
/** The YAML view's text, through the editor handle the dialog keeps on the node while it is open. */
const yamlText = (node = SCHEDULE) =>
  stack.page.evaluate(
    (id) =>
      (window as unknown as { RED: { nodes: { node(id: string): { yamlEditor?: { getValue(): string } } } } }).RED.nodes
        .node(id)
        .yamlEditor?.getValue() ?? '',
    node,
  );
/** "2026-11-28 10:58 +01:00", as the answer shows a time */
const shown = (ms: number) =>
  formatLocalIso(ms, ZONE)
    .replace('T', ' ')
    .replace(/:\d{2}([+-]\d{2}:\d{2})$/, ' $1');

describe('schedule window from a calendar', () => {
  it('picks "calendar", types a calendar file, and Test feed lists the matching events with padded times in the window’s zone', async () => {
    const { page } = stack;
    await openNode(page, SCHEDULE);
    await row().locator('.ms-w-kind').selectOption('ical');
    expect(await row().locator('.ms-w-cron').isVisible()).toBe(false);
    await row().locator('.ms-w-feed').fill(feedFile);
    // the title pattern's syntax is RE2's, asked of the runtime once typing pauses, and said under the field
    const titleError = row().locator('.ms-w-match-title-error');
    await row().locator('.ms-w-match-title').fill('(unclosed');
    await expect
      .poll(() => titleError.textContent())
      .toBe('The title pattern "(unclosed" is not a valid regular expression (missing closing ): `(unclosed`).');
    await row().locator('.ms-w-match-title').fill('^REC ');
    await expect.poll(() => titleError.isVisible()).toBe(false);
    await row().locator('.ms-w-padding-before').fill('2m');
    await row().locator('.ms-w-padding-after').fill('5m');
    await row().locator('.ms-w-timezone').fill(ZONE);
    await row().locator('.ms-w-feed-test').click();
    const items = row().locator('.ms-w-feed-occurrence');
    await expect.poll(() => items.count(), { timeout: 20_000 }).toBe(2);
    expect(await items.locator('.ms-w-feed-title').allTextContents()).toEqual(['REC Morning news', 'REC Interview']);
    const first = (await items.first().textContent()) ?? '';
    expect(first).toContain(`${shown(DAY + 10 * HOUR - 2 * 60_000)} – ${shown(DAY + 11 * HOUR + 5 * 60_000)}`);
    expect(first).toContain(`programme ${shown(DAY + 10 * HOUR)} – ${shown(DAY + 11 * HOUR)}`);
    expect(await row().locator('.ms-w-feed-zone').textContent()).toContain(ZONE);
    await screenshot(page, 'schedule-feed-test.png', 'tray');
  });

  it('marks the overlapping event when the document limits the space to one channel', async () => {
    const { page } = stack;
    // the YAML view carries the list's windows; a max_channels line there is sent with Test feed
    await page.locator('#node-input-source').selectOption('yaml');
    await expect.poll(yamlText).toContain(`ical: ${feedFile}`);
    // the title pattern keeps its trailing space
    expect(await yamlText()).toContain('title: "^REC "');
    await page.evaluate((id) => {
      const editor = (
        window as unknown as {
          RED: {
            nodes: { node(id: string): { yamlEditor?: { getValue(): string; setValue(v: string, c: number): void } } };
          };
        }
      ).RED.nodes.node(id)?.yamlEditor;
      editor?.setValue(`max_channels: 1\n${editor.getValue()}`, -1);
    }, SCHEDULE);
    // back in the list, Test feed sends the YAML view's max_channels
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    await row().locator('.ms-w-feed-test').click();
    const conflict = row().locator('.ms-w-feed-conflict');
    await expect.poll(() => conflict.count(), { timeout: 20_000 }).toBe(1);
    expect(await conflict.textContent()).toMatch(
      /^Not recorded: REC Interview at .* loses to REC Morning news \(2 channels at once, the limit is 1\)\.$/,
    );
    expect(await row().locator('.ms-w-kind').inputValue()).toBe('ical');
    expect(await row().locator('.ms-w-feed').inputValue()).toBe(feedFile);
  });

  it('keeps a private address as the node’s credential: never in the exported or deployed flow, and the deployed node tests with it', async () => {
    const { page } = stack;
    await row().locator('.ms-w-feed-private').check();
    expect(await row().locator('.ms-w-feed').getAttribute('type')).toBe('password');
    await row().locator('.ms-w-feed').fill(feedFile);
    await row().locator('.ms-w-feed-test').click();
    await expect.poll(() => row().locator('.ms-w-feed-occurrence').count(), { timeout: 20_000 }).toBe(2);
    await closeNode(page);
    const exported = await page.evaluate(() =>
      JSON.stringify(
        (
          window as unknown as { RED: { nodes: { createCompleteNodeSet(o?: unknown): unknown } } }
        ).RED.nodes.createCompleteNodeSet({ credentials: false }),
      ),
    );
    expect(exported).toContain('"ical":"private"');
    expect(exported).not.toContain('feeds-private-4c1d');
    await deploy(page);
    const flows = await (await fetch(`${stack.nodeRed.url}/flows`)).text();
    expect(flows).toContain('"ical":"private"');
    expect(flows).not.toContain('feeds-private-4c1d');
    // the runtime has the address: the deployed node's window is tested with it, and it is not sent back
    const res = await fetch(`${stack.nodeRed.url}/media-spaces/schedule/test-feed`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ node: SCHEDULE, window: { id: 'studio', ical: 'private', match: { title: '^REC ' } } }),
    });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(JSON.parse(text)).toMatchObject({
      ok: true,
      occurrences: [{ title: 'REC Morning news' }, { title: 'REC Interview' }],
    });
    expect(text).not.toContain('feeds-private-4c1d');
    // reopened, the dialog shows the address as stored, not its text
    await openNode(page, SCHEDULE);
    expect(await row().locator('.ms-w-feed-private').isChecked()).toBe(true);
    expect(await row().locator('.ms-w-feed').inputValue()).toBe('');
    expect(await row().locator('.ms-w-feed').getAttribute('placeholder')).toMatch(/stored/);
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });

  it('shows a guide window of the YAML in the form, and the form writes it back: rules, padding, sources and the fields it has no place for', async () => {
    const { page } = stack;
    await openNode(page, GUIDE_SCHEDULE);
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    await row().locator('.ms-w-match-channel').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await row().locator('.ms-w-kind').inputValue()).toBe('xmltv');
    expect(await row().locator('.ms-w-feed').inputValue()).toBe('/data/guide.xml.gz');
    expect(await row().locator('.ms-w-match-channel').inputValue()).toBe('bbc1.uk, bbc1hd.uk');
    expect(await row().locator('.ms-w-match-day[data-day="sat"]').isChecked()).toBe(true);
    expect(await row().locator('.ms-w-match-new').isChecked()).toBe(true);
    expect(await row().locator('.ms-w-sources').inputValue()).toBe('bbc1.uk = live-1\nbbc1hd.uk = live-2');
    expect(await row().locator('.ms-w-all-day').isVisible()).toBe(false);
    // re-record: on, its window typed, the share left to the runtime's default (which the field states)
    expect(await row().locator('.ms-w-rerecord').isChecked()).toBe(true);
    expect(await row().locator('.ms-w-rerecord-within').inputValue()).toBe('3d');
    expect(await row().locator('.ms-w-rerecord-min-lost').getAttribute('placeholder')).toBe('default: 10%');
    await row().locator('.ms-w-rerecord-min-lost').fill('150%');
    expect(await row().locator('.ms-w-rerecord-min-lost-error').textContent()).toMatch(/from 0% to 100%/);
    await row().locator('.ms-w-rerecord-min-lost').fill('25%');
    await row().locator('.ms-w-match-day[data-day="sun"]').check();
    await row().locator('.ms-w-match-between').fill('17:00');
    expect(await row().locator('.ms-w-match-between-error').textContent()).toMatch(/17:00-21:00/);
    await row().locator('.ms-w-match-between').fill('18:00-22:00');
    await row().locator('.ms-w-sources').fill('bbc1.uk = live-9');
    await page.locator('#node-input-source').selectOption('yaml');
    await expect.poll(() => yamlText(GUIDE_SCHEDULE), { timeout: 10_000 }).toContain('between: 18:00-22:00');
    const yaml = await yamlText(GUIDE_SCHEDULE);
    expect(yaml).toContain('xmltv: /data/guide.xml.gz');
    expect(yaml).toMatch(/channel:\s+- bbc1\.uk\s+- bbc1hd\.uk/);
    expect(yaml).toMatch(/days:\s+- sat\s+- sun/);
    expect(yaml).toContain('between: 18:00-22:00');
    expect(yaml).toContain('new_only: true');
    expect(yaml).toMatch(/sources:\s+bbc1\.uk: live-9\n/);
    expect(yaml).toContain('at_end: keep');
    expect(yaml).toMatch(/rerecord:\s+within: 3d\s+min_lost: 25%/);
    expect(yaml).not.toContain('cron:');
    await closeNode(page, 'cancel');
  });
});
