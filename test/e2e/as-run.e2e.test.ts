import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotTransition } from '../../lib/schedule/slot-events';
import { SlotStory } from '../support/slot-transitions';
import { downloadedText } from './support/browser';
import { openSidebar, type SidebarStack, startSidebarStack, widenSidebar } from './support/sidebar-stack';

/**
 * The tab's As-run view in a real editor on a real Node-RED with the
 * installed package: slot transitions are published inside the runtime by
 * the test-only module (test/e2e/fixtures/slot-events) as the schedule
 * publishes them; the view reads the as-run log of the day through the admin
 * route, shows discrepancies in red with their reason, and exports the day.
 */
const today = new Date().toISOString().slice(0, 10);
const at = (h: number) => `${today}T${String(h).padStart(2, '0')}:00:00Z`;
/** a zone without daylight saving time: the CSV's offsets are the same all year */
const TOKYO = { id: 'news', zone: 'Asia/Tokyo' };
const HOSTILE = '<img src=x onerror="window.__owned=1">';

describe('Media Spaces sidebar: the As-run view', () => {
  let stack: SidebarStack;

  const publish = async (transitions: SlotTransition[]) => {
    const r = await fetch(`${stack.nodeRed.url}/media-spaces-test/slot-events`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ transitions }),
    });
    expect(r.status).toBe(200);
  };

  beforeAll(async () => {
    stack = await startSidebarStack('as-run', {
      flows: [
        { id: 'artab00000000001', type: 'tab', label: 'as-run' },
        {
          id: 'arevents00000001',
          type: 'media-spaces-test-slot-events',
          z: 'artab00000000001',
          x: 100,
          y: 100,
          wires: [],
        },
      ],
    });
    const recorded = new SlotStory({ start: at(1), title: 'Morning show', episode: 'E12', window: TOKYO });
    const missed = new SlotStory({ start: at(2), title: HOSTILE, window: TOKYO });
    const partial = new SlotStory({ start: at(3), title: 'Afternoon', window: TOKYO });
    const length = (recorded.end - recorded.start) / 1000;
    await publish([
      recorded.to('starting', 0),
      recorded.to('recording', 0.3, { lateBy: 0.3, channel: { id: 'ch-morning' } }),
      recorded.to('finished', length + 5, { channel: { id: 'ch-morning', outputs: ['s3://b/m.mxf'] } }),
      missed.to('starting', 0),
      missed.to('missed', 90, { why: 'create channel failed: 503 <b>busy</b>' }),
      partial.to('starting', 0),
      partial.to('recording', 40, { lateBy: 40, channel: { id: 'ch-a' } }),
      partial.to('partial', length + 5, { why: 'lost 60 s to a continuity fault' }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('shows the day, discrepancies in red with their reason, text as text, and filters by outcome', async () => {
    const { page } = stack;
    await openSidebar(page);
    await widenSidebar(page, 700);
    await page.locator('.ms-asrun-toggle').click();
    await page.locator('.ms-ar-day').fill(today);
    await page.locator('.ms-ar-zone').fill('UTC');
    await page.locator('.ms-ar-zone').dispatchEvent('change');
    await page.locator('.ms-ar-item').nth(2).waitFor();
    const items = page.locator('.ms-ar-item');
    expect(await items.evaluateAll((es) => es.map((e) => (e as HTMLElement).dataset.outcome))).toEqual([
      'recorded',
      'missed',
      'partial',
    ]);
    expect(await items.nth(0).locator('.ms-ar-title').textContent()).toBe('Morning show · E12');
    expect(await items.nth(0).locator('.ms-ar-reason').count()).toBe(0);
    expect(await items.nth(1).locator('.ms-ar-title').textContent()).toBe(HOSTILE);
    const reason = items.nth(1).locator('.ms-ar-reason');
    expect(await reason.textContent()).toBe('missed: create channel failed: 503 <b>busy</b>');
    expect(await reason.evaluate((e) => getComputedStyle(e).color)).toBe('rgb(201, 48, 44)');
    expect(await items.nth(2).locator('.ms-ar-reason').textContent()).toBe(
      'partial: lost 60 s to a continuity fault; started 40 s late',
    );
    expect(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned)).toBeUndefined();
    expect(await page.locator('.ms-ar img').count()).toBe(0);
    expect(await page.locator('.ms-ar-status').textContent()).toBe('3 slots, 2 with a discrepancy');

    await page.locator('.ms-ar-outcome').selectOption('missed');
    await page.waitForFunction(() => document.querySelectorAll('.ms-ar-item').length === 1);
    expect(await page.locator('.ms-ar-item').getAttribute('data-outcome')).toBe('missed');
    await page.locator('.ms-ar-outcome').selectOption('');
    await page.waitForFunction(() => document.querySelectorAll('.ms-ar-item').length === 3);
    expect(stack.pageErrors).toEqual([]);
  });

  it('exports the day as CSV, one row per slot, and as JSON Lines', async () => {
    const { page } = stack;
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.locator('.ms-ar-export-csv').click()]);
    // the name the runtime gives: every schedule, the day, the zone, every outcome, and when it was exported
    expect(csvDownload.suggestedFilename()).toMatch(
      new RegExp(`^as-run_all-schedules_${today}_UTC_all_exported-\\d{8}T\\d{6}Z\\.csv$`),
    );
    const rows = parse(await downloadedText(csvDownload), { columns: true }) as Record<string, string>[];
    // times in the window's zone with its offset
    expect(rows.map((r) => [r.outcome, r.title, r.scheduled_start])).toEqual([
      ['recorded', 'Morning show', `${today}T10:00:00+09:00`],
      ['missed', HOSTILE, `${today}T11:00:00+09:00`],
      ['partial', 'Afternoon', `${today}T12:00:00+09:00`],
    ]);
    const [jsonlDownload] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.ms-ar-export-jsonl').click(),
    ]);
    const lines = (await downloadedText(jsonlDownload)).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l).outcome)).toEqual(['recorded', 'missed', 'partial']);
  });

  it('links a re-record and the slot it records again, both ways', async () => {
    const { page } = stack;
    const first = new SlotStory({ start: at(4), title: 'The Serial', episode: 'S02E03', window: TOKYO });
    const again = new SlotStory({ start: at(5), title: 'The Serial', episode: 'S02E03', window: TOKYO });
    const length = (again.end - again.start) / 1000;
    await publish([
      first.to('starting', 0),
      first.to('missed', length, { why: 'create channel failed: 503' }),
      again.to('starting', 0, { rerecordOf: first.slot }),
      again.to('recording', 1, { rerecordOf: first.slot, lateBy: 1, channel: { id: 'ch-again' } }),
      again.to('finished', length + 5, { rerecordOf: first.slot, channel: { id: 'ch-again' } }),
    ]);
    await page.locator('.ms-ar-zone').dispatchEvent('change');
    await page.waitForFunction(() => document.querySelectorAll('.ms-ar-item').length === 5);
    const row = (slot: string) => page.locator(`.ms-ar-item[data-slot="${slot}"]`);
    expect(await row(first.slot).locator('.ms-ar-rerecord').textContent()).toMatch(
      /^recorded again at 05:00:00 \(\d+ \w+\)$/,
    );
    expect(await row(again.slot).locator('.ms-ar-rerecord').textContent()).toMatch(
      /^re-record of the airing at 04:00:00 \(\d+ \w+\)$/,
    );
    expect(await row(first.slot).getAttribute('data-outcome')).toBe('missed');
    expect(await row(again.slot).getAttribute('data-outcome')).toBe('recorded');
    // following the link marks the other row
    await row(again.slot).locator('.ms-ar-rerecord-link').click();
    await row(first.slot).and(page.locator('.ms-ar-flash')).waitFor();
    // the CSV names the slot recorded again
    const [csvDownload] = await Promise.all([page.waitForEvent('download'), page.locator('.ms-ar-export-csv').click()]);
    const rows = parse(await downloadedText(csvDownload), { columns: true }) as Record<string, string>[];
    expect(rows.filter((r) => r.title === 'The Serial').map((r) => [r.outcome, r.rerecord_of])).toEqual([
      ['missed', ''],
      ['recorded', first.slot],
    ]);
    expect(stack.pageErrors).toEqual([]);
  });
});
