import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SlotTransition } from '../../lib/schedule/slot-events';
import { SlotStory } from '../support/slot-transitions';
import { openSidebar, type SidebarStack, startSidebarStack, widenSidebar } from './support/sidebar-stack';
import { screenshot } from './support/stack';

/**
 * The toolbar's schedule filter is the tab's one filter: with one schedule chosen, the timeline, the jobs
 * (those followed by a follow-job node the schedule's messages reach, through wires) and the As-run view show
 * that schedule's only; the As-run view keeps its outcome filter and has no schedule box of its own. Its
 * headings give seconds where minutes would hide them (40-second slots).
 */

const TAB = 'fltab00000000001';
const DEMO = 'fltdemo000000001';
const STUDIO = 'fltstudio0000001';
const DEMO_FOLLOW = 'fltfollowdemo001';
const STUDIO_CHANGE = 'fltchangestudio1';
const STUDIO_FOLLOW = 'fltfollowstudio1';
const WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000006';
const today = new Date().toISOString().slice(0, 10);

describe('Media Spaces sidebar: one schedule filter', () => {
  let stack: SidebarStack;

  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${stack.nodeRed.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(r.status).toBe(200);
  };

  beforeAll(async () => {
    const schedule = (id: string, name: string, y: number, windows: unknown[], wires: string[]) => ({
      id,
      type: 'media-spaces-test-schedule',
      z: TAB,
      name,
      windows: JSON.stringify(windows),
      slots: '[]',
      paused: false,
      copies: 1,
      x: 160,
      y,
      wires: [wires],
    });
    const follow = (id: string, name: string, x: number, y: number) => ({
      id,
      type: 'media-spaces-follow-job',
      z: TAB,
      name,
      x,
      y,
      wires: [[], []],
    });
    stack = await startSidebarStack('one-filter', {
      flows: [
        { id: TAB, type: 'tab', label: 'one filter' },
        { id: 'fltevents0000001', type: 'media-spaces-test-slot-events', z: TAB, x: 120, y: 40, wires: [] },
        schedule(
          DEMO,
          'Demo schedule',
          100,
          [{ id: 'demo', name: 'Demo recording', cron: '* * * * *', timezone: 'UTC', duration: 40 }],
          [DEMO_FOLLOW],
        ),
        schedule(
          STUDIO,
          'Studio',
          200,
          [{ id: 'news', name: 'News', cron: '0 * * * *', timezone: 'UTC', duration: 1800 }],
          [STUDIO_CHANGE],
        ),
        follow(DEMO_FOLLOW, 'follow demo jobs', 420, 100),
        { id: STUDIO_CHANGE, type: 'change', z: TAB, name: '', rules: [], x: 380, y: 200, wires: [[STUDIO_FOLLOW]] },
        follow(STUDIO_FOLLOW, 'follow studio jobs', 600, 200),
      ],
    });
    // each schedule's follow-up jobs, as their follow-job nodes report them
    await post('/media-spaces-test/jobs', [
      {
        nodeId: DEMO_FOLLOW,
        jobId: 'job-demo-1',
        workflowId: WORKFLOW,
        name: 'Demo proxy',
        state: 'running',
        progress: 40,
      },
      {
        nodeId: STUDIO_FOLLOW,
        jobId: 'job-studio-1',
        workflowId: WORKFLOW,
        name: 'Studio archive',
        state: 'running',
        progress: 10,
      },
    ]);
    // the day's as-run log: two 40-second demo slots and a half-hour studio slot
    const demo = { id: DEMO, name: 'Demo schedule' };
    const studio = { id: STUDIO, name: 'Studio' };
    const utc = (id: string) => ({ id, zone: 'UTC' });
    const first = new SlotStory({
      schedule: demo,
      window: utc('demo'),
      start: `${today}T01:07:00Z`,
      minutes: 40 / 60,
      title: 'Demo A',
    });
    const second = new SlotStory({
      schedule: demo,
      window: utc('demo'),
      start: `${today}T01:08:00Z`,
      minutes: 40 / 60,
      title: 'Demo B',
    });
    const news = new SlotStory({
      schedule: studio,
      window: utc('news'),
      start: `${today}T02:00:00Z`,
      minutes: 30,
      title: 'News',
    });
    const events: SlotTransition[] = [];
    for (const story of [first, second, news]) {
      const length = (story.end - story.start) / 1000;
      events.push(
        story.to('starting', 0),
        story.to('recording', 1.5, { lateBy: 1.5, channel: { id: `ch-${story.slot}` } }),
        story.to('finished', length + 2, { channel: { id: `ch-${story.slot}`, outputs: [] } }),
      );
    }
    await post('/media-spaces-test/slot-events', { transitions: events });
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  const jobTitles = () => stack.page.locator('.ms-fl-jobs .ms-fl-title').allTextContents();
  const rowNames = () => stack.page.locator('.ms-tl-row .ms-tl-title').allTextContents();

  it('hides the other schedules from the timeline and the jobs', async () => {
    const { page } = stack;
    await openSidebar(page);
    await widenSidebar(page, 700);
    await expect
      .poll(async () => (await jobTitles()).sort(), { timeout: 20_000 })
      .toEqual(['Demo proxy', 'Studio archive']);
    await page.locator('.ms-filter').selectOption(STUDIO);
    await expect.poll(jobTitles).toEqual(['Studio archive']);
    expect(await rowNames()).toEqual(['Studio']);
    await page.locator('.ms-filter').selectOption(DEMO);
    await expect.poll(jobTitles).toEqual(['Demo proxy']);
    expect(await rowNames()).toEqual(['Demo schedule']);
    await page.locator('.ms-filter').selectOption('');
    await expect.poll(async () => (await jobTitles()).sort()).toEqual(['Demo proxy', 'Studio archive']);
  });

  it("is the As-run view's schedule filter; the view keeps its outcome filter and shows seconds", async () => {
    const { page } = stack;
    await page.locator('.ms-asrun-toggle').click();
    await page.locator('.ms-ar-day').fill(today);
    await page.locator('.ms-ar-zone').fill('UTC');
    await page.locator('.ms-ar-zone').dispatchEvent('change');
    const titles = () => page.locator('.ms-ar-item .ms-ar-title').allTextContents();
    await expect.poll(titles).toEqual(['Demo A', 'Demo B', 'News']);
    // no schedule box of its own; the outcome filter stays
    expect(await page.locator('.ms-ar-controls input[type="text"]').count()).toBe(1);
    expect(await page.locator('.ms-ar-outcome').count()).toBe(1);
    // the toolbar's filter, still shown above the As-run view
    await page.locator('.ms-filter').selectOption(STUDIO);
    await expect.poll(titles).toEqual(['News']);
    await page.locator('.ms-filter').selectOption(DEMO);
    await expect.poll(titles).toEqual(['Demo A', 'Demo B']);
    // 40-second slots with their seconds; the recording's own times too
    expect(await page.locator('.ms-ar-item .ms-ar-time').allTextContents()).toEqual([
      '01:07:00–01:07:40',
      '01:08:00–01:08:40',
    ]);
    expect(await page.locator('.ms-ar-item .ms-ar-detail').first().textContent()).toContain('recorded 01:07:01–');
    await screenshot(page, 'sidebar-asrun-filter.png', 'sidebar');
    await page.locator('.ms-ar-outcome').selectOption('missed');
    await expect.poll(() => page.locator('.ms-ar-item').count()).toBe(0);
    await page.locator('.ms-ar-outcome').selectOption('');
    await page.locator('.ms-filter').selectOption('');
    await expect.poll(titles).toEqual(['Demo A', 'Demo B', 'News']);
    // the half-hour slot, on the minute, without seconds
    expect(await page.locator('.ms-ar-item .ms-ar-time').last().textContent()).toBe('02:00–02:30');
    expect(stack.pageErrors).toEqual([]);
  });
});
