import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ActivitySnapshot, SlotReport } from '../../nodes/sidebar/activity-types';
import { activityFlow } from '../nodes/sidebar/support';
import { openSidebar, type SidebarStack, startSidebarStack, widenSidebar } from './support/sidebar-stack';
import { screenshot } from './support/stack';

/**
 * A slot's life as the sidebar tab shows it, stage by stage, in a real
 * editor on a real Node-RED. The schedule's reports come from the test-only
 * schedule node (test/e2e/fixtures/activity): the test posts each report to
 * it, and it hands them to the runtime's activity feed as a schedule does;
 * its "Skip next" and "Start now" report the skipped start and the start as
 * the schedule does. Everything else is the package as installed.
 */

const SCHEDULE = 'sidebarsched0001';
const MINUTE = 60_000;
const WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000001';
const WINDOWS = [
  { id: 'flash', name: 'News flash', cron: '*/10 * * * *', timezone: 'UTC', duration: 300 },
  { id: 'studio', name: 'Studio B', cron: '30 * * * *', timezone: 'Europe/London', duration: 1200 },
  { id: 'weather', name: 'Weather', cron: '55 * * * *', timezone: 'UTC', duration: 240 },
  // never reported: its slot in progress is only planned
  { id: 'live', name: 'Live desk', cron: '0 * * * *', timezone: 'UTC', duration: 3600 },
  { id: 'minutely', name: 'Minute check', cron: '* * * * *', timezone: 'UTC', duration: 40 },
];

describe('Media Spaces sidebar: a slot through its life', () => {
  let stack: SidebarStack;
  /** the runtime's clock, a whole minute, when the tests began */
  let t0 = 0;

  const report = async (...slots: SlotReport[]) => {
    const answer = await fetch(`${stack.nodeRed.url}/media-spaces-test/slots/${SCHEDULE}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(slots),
    });
    expect(answer.status).toBe(200);
  };
  const row = (start: number) => stack.page.locator(`.ms-fl-item[data-start="${start}"]`);
  const bar = (window: string, start: number) =>
    stack.page.locator(`.ms-tl-bar[data-window="${window}"][data-start="${start}"]`);
  /** the row's stage, its state text and its detail once the tab shows the stage */
  const shown = async (start: number, stage: string) => {
    const item = stack.page.locator(`.ms-fl-item[data-start="${start}"][data-stage="${stage}"]`);
    await item.waitFor();
    return {
      state: await item.locator('.ms-fl-state').textContent(),
      detail: (await item.locator('.ms-fl-detail').textContent()) ?? '',
      section: await item.evaluate((e) => e.closest('.ms-fl-section')?.className ?? ''),
    };
  };

  /** the runtime's clock, to the minute */
  const minuteNow = async () => {
    const snapshot = (await (await fetch(`${stack.nodeRed.url}/media-spaces/activity`)).json()) as ActivitySnapshot;
    return Math.floor(snapshot.now / MINUTE) * MINUTE;
  };

  beforeAll(async () => {
    const [tab, schedule] = activityFlow({ name: 'Recording schedule', windows: JSON.stringify(WINDOWS) });
    // a node that knows a workflow's name (the picker keeps it): the tab names the jobs' workflow by it
    const submit = {
      id: 'sidebarsubmit001',
      type: 'media-spaces-submit-job',
      z: tab.id,
      x: 200,
      y: 300,
      name: 'Submit',
      server: '',
      workflowId: WORKFLOW,
      workflowIdType: 'str',
      workflowName: 'Transcode to proxy',
      wires: [[]],
    };
    stack = await startSidebarStack('stages', { flows: [tab, schedule, submit] });
    t0 = await minuteNow();
    await widenSidebar(stack.page);
    await openSidebar(stack.page);
    await stack.page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`).waitFor();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('shows a slot starting (attempt and last failure), recording (how late), stopping, then finished (follow-up time)', async () => {
    const start = t0 - MINUTE;
    const slot = { windowId: 'flash', start, end: start + 5 * MINUTE };
    const times = /^\d\d:\d\d–\d\d:\d\d UTC · /;

    await report({ ...slot, life: { stage: 'starting', attempt: 1 } });
    let seen = await shown(start, 'starting');
    expect(seen.state).toBe('starting');
    expect(seen.section).toContain('ms-fl-recording');
    expect(seen.detail).toMatch(times);
    expect(seen.detail).toMatch(/ · starting · \d+ (s|min) elapsed · \d+ min left$/);
    expect(await bar('flash', start).getAttribute('class')).toContain('ms-stage-starting');

    await report({ ...slot, life: { stage: 'starting', attempt: 4, note: '503 Service Unavailable' } });
    await stack.page.locator(`.ms-fl-item[data-start="${start}"]`, { hasText: 'attempt 4' }).waitFor();
    expect(await row(start).locator('.ms-fl-detail').textContent()).toContain(
      'starting, attempt 4: 503 Service Unavailable',
    );
    expect(await bar('flash', start).getAttribute('title')).toContain('starting, attempt 4: 503 Service Unavailable');

    await report({ ...slot, life: { stage: 'recording', lateMs: 31_000 }, channel: { state: 'RECORDING', id: 'c1' } });
    seen = await shown(start, 'recording');
    expect(seen.detail).toContain('recording, started 31 s late · channel RECORDING');
    expect(await bar('flash', start).getAttribute('class')).toContain('ms-stage-recording');

    await report({ ...slot, life: { stage: 'stopping' }, channel: { state: 'FINISHING_RECORDING', id: 'c1' } });
    seen = await shown(start, 'stopping');
    expect(seen.detail).toContain('stopping · channel FINISHING_RECORDING');

    const followupAt = start + 5 * MINUTE + 4_000;
    const at = new Date(followupAt).toISOString().slice(11, 19);
    await report({ ...slot, life: { stage: 'finished', followupAt }, channel: { state: 'INACTIVE', id: 'c1' } });
    seen = await shown(start, 'finished');
    expect(seen.section).toContain('ms-fl-windows');
    expect(seen.detail).toMatch(times);
    expect(seen.detail).toContain(`finished, follow-up submitted at ${at}`);
    expect(await bar('flash', start).getAttribute('class')).toContain('ms-ok');
  });

  it('marks a missed window as an alarm with its reason, and a skipped one with its note', async () => {
    const missed = t0 - 40 * MINUTE;
    const skipped = t0 - 30 * MINUTE;
    await report(
      {
        windowId: 'flash',
        start: missed,
        end: missed + 5 * MINUTE,
        life: { stage: 'missed', note: "every start refused (503) until the window's end" },
      },
      { windowId: 'flash', start: skipped, end: skipped + 5 * MINUTE, life: { stage: 'skipped', note: 'paused' } },
    );
    const alarm = await shown(missed, 'missed');
    expect(alarm.section).toContain('ms-fl-failures');
    expect(alarm.detail).toContain("missed: every start refused (503) until the window's end");
    const red = 'rgb(217, 83, 79)';
    expect(
      await row(missed)
        .locator('.ms-fl-state')
        .evaluate((e) => getComputedStyle(e).color),
    ).toBe(red);
    expect(await bar('flash', missed).evaluate((e) => getComputedStyle(e).backgroundColor)).toBe(red);
    const note = await shown(skipped, 'skipped');
    expect(note.section).toContain('ms-fl-windows');
    expect(note.detail).toContain('skipped: paused');
  });

  it('never lists an unreported window as recording: after pause and resume, its slot in progress is only "due"', async () => {
    const { page } = stack;
    const head = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    await head.locator('.ms-act-pause').click();
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    await head.locator('.ms-act-resume').click();
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    await page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]:not(.ms-paused)`).waitFor();
    const live = page.locator('.ms-tl-bar[data-window="live"][data-phase="due"]');
    await live.waitFor();
    expect(await live.getAttribute('title')).toContain('due, no start reported');
    expect(await page.locator('.ms-fl-item', { hasText: 'Live desk' }).count()).toBe(0);
    expect(await page.locator('.ms-fl-recording .ms-fl-item[data-stage="in window"]').count()).toBe(0);
  });

  it('"Skip next" then "Start now": the question names the window and its start; two rows, told apart', async () => {
    const { page } = stack;
    const head = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    // the next two starts are the minutely window's alone (no other window starts then), and no
    // minute turns between a question and its answer
    await page.waitForFunction(
      () => {
        const now = new Date();
        const s = now.getUTCSeconds();
        const next = [1, 2].map((n) => (now.getUTCMinutes() + n) % 60);
        return s >= 5 && s <= 45 && next.every((m) => m % 10 !== 0 && m !== 30 && m !== 55);
      },
      undefined,
      { timeout: 150_000, polling: 1000 },
    );
    await head.locator('.ms-act-skip').click();
    const question = page.locator('.red-ui-notification', { hasText: 'Skip the next window' }).last();
    await question.waitFor();
    const asked = (await question.textContent()) ?? '';
    const named = /"Recording schedule": "Minute check", (\d\d:\d\d:\d\d)–\d\d:\d\d:\d\d UTC\?/.exec(asked);
    expect(named, asked).not.toBeNull();
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    const skipped = page.locator('.ms-fl-windows .ms-fl-item[data-stage="skipped"]', { hasText: 'skipped on request' });
    await skipped.waitFor();
    expect(await skipped.locator('.ms-fl-detail').textContent()).toMatch(
      new RegExp(`^${named?.[1]}–\\d\\d:\\d\\d:\\d\\d UTC · skipped: skipped on request$`),
    );

    await head.locator('.ms-act-start').click();
    const start = page.locator('.red-ui-notification', { hasText: 'now?' }).last();
    await start.waitFor();
    expect(await start.textContent()).toMatch(
      /Start "Minute check" of "Recording schedule" now\? Its next planned start is \d\d:\d\d:\d\d–\d\d:\d\d:\d\d UTC\./,
    );
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    const started = page.locator('.ms-fl-recording .ms-fl-item[data-stage="starting"]', { hasText: 'Minute check' });
    await started.waitFor();
    const rows = page.locator('.ms-fl-item', { hasText: 'Minute check · Recording schedule' });
    expect(await rows.count()).toBe(2);
    const [first, second] = await rows.evaluateAll((items) =>
      items.map((i) => `${(i as HTMLElement).dataset.stage} ${i.querySelector('.ms-fl-detail')?.textContent}`),
    );
    expect(first).not.toBe(second);
    expect(new Set([first?.split(' ')[0], second?.split(' ')[0]])).toEqual(new Set(['starting', 'skipped']));
  }, 200_000);

  it('draws an every-minute window to the end of the 24-hour and 7-day views', async () => {
    const { page } = stack;
    for (const view of ['24h', '7d']) {
      await page.locator(`.ms-view[data-view="${view}"]`).click();
      const band = page.locator('.ms-tl-bar.ms-band[data-window="minutely"]');
      await band.waitFor({ state: 'attached' });
      const reach = await band.evaluate((e) => {
        const track = e.parentElement?.getBoundingClientRect();
        const box = e.getBoundingClientRect();
        return track ? (box.right - track.left) / track.width : 0;
      });
      expect(reach, view).toBeGreaterThan(0.99);
      expect(await band.getAttribute('title')).toContain('too many starts to draw one by one');
    }
    await page.locator('.ms-view[data-view="6h"]').click();
  });

  it('lists finished jobs newest first, the 10 newest, with their end time, workflow name and whole name', async () => {
    const { page } = stack;
    const long = 'Proxy of Demo recording 2026-11-24 20:23:00 UTC, Studio B, camera 2 (ISO feed)';
    for (let i = 1; i <= 12; i++) {
      const job = { nodeId: 'sidebarjobs00001', jobId: `job-${i}`, workflowId: WORKFLOW, state: 'succeeded' };
      const answer = await fetch(`${stack.nodeRed.url}/media-spaces-test/jobs`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify([{ ...job, name: i === 12 ? long : `Proxy ${i}`, progress: 100 }]),
      });
      expect(answer.status).toBe(200);
      // each ends at its own millisecond
      await new Promise((r) => setTimeout(r, 5));
    }
    const done = page.locator('.ms-fl-done');
    await done.locator('.ms-fl-count', { hasText: '(10 of 12)' }).waitFor();
    const titles = await done.locator('.ms-fl-title').allTextContents();
    expect(titles).toEqual([long, ...[11, 10, 9, 8, 7, 6, 5, 4, 3].map((i) => `Proxy ${i}`)]);
    const first = done.locator('.ms-fl-item').first();
    expect(await first.locator('.ms-fl-detail').textContent()).toMatch(
      /^workflow Transcode to proxy · succeeded at \d\d:\d\d:\d\d$/,
    );
    // the whole name at about the sidebar's default width, wrapped rather than cut
    await widenSidebar(page, 340);
    const title = first.locator('.ms-fl-title');
    expect(await title.evaluate((e) => e.getBoundingClientRect().width)).toBeLessThan(300);
    expect(await title.evaluate((e) => e.scrollWidth <= e.clientWidth && e.scrollHeight > 20)).toBe(true);
    expect(await title.getAttribute('title')).toBe(long);
    await widenSidebar(page);
  });

  it('shows every stage at once (screenshot)', async () => {
    const { page } = stack;
    // the skip test waited for its minute: now, not t0
    const now = await minuteNow();
    const at = (min: number, window: string, duration: number) => ({
      windowId: window,
      start: now + min * MINUTE,
      end: now + (min + duration) * MINUTE,
    });
    await report(
      { ...at(-2, 'studio', 20), life: { stage: 'starting', attempt: 4, note: '503 Service Unavailable' } },
      { ...at(-3, 'weather', 4), life: { stage: 'recording', lateMs: 31_000 }, channel: { state: 'RECORDING' } },
      { ...at(-12, 'flash', 5), life: { stage: 'stopping' }, channel: { state: 'FINISHING_RECORDING' } },
    );
    await page.locator('.ms-fl-recording .ms-fl-item[data-stage="stopping"]').waitFor();
    expect(await page.locator('.ms-fl-recording .ms-fl-item').count()).toBeGreaterThanOrEqual(3);
    await page.mouse.move(400, 600);
    await screenshot(page, 'sidebar-slot-stages.png');
    expect(stack.pageErrors).toEqual([]);
  });
});
