import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../lib/simulator';
import { decodeActivity } from '../../nodes/sidebar/activity-decode';
import type { ActivitySnapshot } from '../../nodes/sidebar/activity-types';
import type { WireSnapshot } from '../../nodes/sidebar/activity-wire';
import { twentyWindows } from '../nodes/sidebar/scale-fixture';
import { activityFlow, adminAuthSettings, PASSWORDS } from '../nodes/sidebar/support';
import { waitForStatus } from './support/editor';
import { INSTALLED_PACKAGE } from './support/paths';
import {
  openSidebar,
  SHORT_TAB_PX,
  type SidebarStack,
  startSidebarStack,
  tabSize,
  widenSidebar,
} from './support/sidebar-stack';
import { isNodeHighlighted, showSidebarTab, sidebarTabName } from './support/sidebar-tabs';
import { screenshot } from './support/stack';

/**
 * The "Media Spaces" sidebar tab in a real editor, fed by the real nodes:
 * a schedule node (windows, a window in progress whose channel a real
 * create-channel node made on the simulator, pause and resume from the tab)
 * and a follow-job node following real jobs the simulator runs. Test-only
 * nodes (test/e2e/fixtures/activity) remain only where a real node cannot
 * produce the state: the past day's slot outcomes (a test starts now, with
 * no yesterday; reported into the real schedule's row), and the scale test
 * (50 schedules, 500 jobs changing every second).
 */

const require = createRequire(import.meta.url);
const TAB = 'sidebartab000001';
const SCHEDULE = 'sidebarsched0001';
const FOLLOW = 'sidebarfollow001';
const CONFIG = 'sidebarconfig001';
const at = { z: TAB, x: 160 };
const SPACE = '11111111-1111-4111-8111-111111111111';
const WF_TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000001';
const WF_FAILS = 'aaaaaaaa-0000-4000-8000-000000000005';

/** The simulator shipped in the installed package, in this process, on its real clock. */
async function startSim(): Promise<Simulator> {
  const { startSimulator } = require(join(INSTALLED_PACKAGE, 'dist/lib/simulator/index.js')) as {
    startSimulator: (o: SimulatorOptions) => Promise<Simulator>;
  };
  return startSimulator({ port: 0, host: '127.0.0.1' });
}

/**
 * The runtime's clock for these tests: noon (UTC) of the day they run, moving on from there, so that
 * "Evening news" (18:00 London) is always the next window and never in progress, whatever the time
 * of day the tests run. The editor takes its "now" from the runtime.
 */
const RUNTIME_NOW = (() => {
  const noon = new Date();
  noon.setUTCHours(12, 0, 0, 0);
  return noon.toISOString();
})();

/** "Live desk": a daily window (UTC) that opened 20 minutes before the runtime starts, so it is caught up at deploy and in progress. */
function liveDeskCron(): string {
  const opened = new Date(Math.floor((Date.parse(RUNTIME_NOW) - 20 * 60_000) / 60_000) * 60_000);
  return `${opened.getUTCMinutes()} ${opened.getUTCHours()} * * *`;
}

function scheduleYaml(): string {
  return `windows:
  - id: news
    name: Evening news
    cron: "0 18 * * *"
    timezone: Europe/London
    duration: 1h
  - id: live
    name: Live desk
    cron: "${liveDeskCron()}"
    timezone: UTC
    duration: 1h
    channel:
      name: "Live desk {{slot.date}} {{slot.time}}"
      source_id: 5f0c6a1e-3b7d-4c2a-9e21-0d4b7c9a1f00
      continuous_recording: false
      recording_duration: 1
`;
}

function mainFlow(sim: Simulator): Record<string, unknown>[] {
  const inject = (id: string, y: number, workflowId: string, jobName: string) => ({
    id,
    type: 'inject',
    ...at,
    y,
    name: jobName,
    props: [{ p: 'payload' }, { p: 'workflow_id', v: workflowId, vt: 'str' }, { p: 'job_name', v: jobName, vt: 'str' }],
    repeat: '',
    once: false,
    topic: '',
    payload: '{}',
    payloadType: 'json',
    wires: [['sidebarsubmit001']],
  });
  // the past day's outcomes: no real node has a yesterday in a test that starts now
  const history = activityFlow({
    id: 'sidebarhistory01',
    name: 'past day (fixture)',
    y: 420,
    slotsFor: SCHEDULE,
    slots: JSON.stringify([
      {
        windowId: 'news',
        startMin: -20 * 60,
        durationMin: 60,
        outcome: { channel: 'created', job: { id: 'job-7', state: 'succeeded' } },
      },
      {
        windowId: 'live',
        startMin: -3 * 60,
        durationMin: 60,
        outcome: { channel: 'failed', reason: 'The service refused the channel name.' },
      },
    ]),
  })[1];
  return [
    { id: TAB, type: 'tab', label: 'sidebar', disabled: false, info: '' },
    {
      id: CONFIG,
      type: 'media-spaces-config',
      name: 'simulator',
      workflowUrl: sim.workflowUrl,
      liveCaptureUrl: sim.liveCaptureUrl,
      spaceId: SPACE,
      workflowPrefix: '/workflow/v1',
      timeout: '10000',
      retries: '0',
      rejectUnauthorized: true,
    },
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      ...at,
      y: 100,
      name: 'News schedule',
      source: 'yaml',
      yaml: scheduleYaml(),
      file: '',
      windows: [],
      scheduleId: 'sidebar',
      timezone: 'UTC',
      catchUp: true,
      server: CONFIG,
      wires: [['sidebarchannel01'], [], []],
    },
    {
      id: 'sidebarchannel01',
      type: 'media-spaces-create-channel',
      ...at,
      x: 420,
      y: 100,
      name: 'Create channel',
      server: CONFIG,
      wires: [[SCHEDULE]],
    },
    inject('sidebarinjectok1', 260, WF_TRANSCODE, 'Transcode evening news'),
    inject('sidebarinjectko1', 320, WF_FAILS, 'Legacy tape ingest'),
    {
      id: 'sidebarsubmit001',
      type: 'media-spaces-submit-job',
      ...at,
      x: 420,
      y: 290,
      name: 'Submit',
      server: CONFIG,
      workflowId: '',
      workflowIdType: 'str',
      wires: [[FOLLOW]],
    },
    {
      id: FOLLOW,
      type: 'media-spaces-follow-job',
      ...at,
      x: 640,
      y: 290,
      name: 'Follow job',
      server: CONFIG,
      interval: 250,
      wires: [[], []],
    },
    { ...history, z: TAB },
  ];
}

describe('Media Spaces sidebar', () => {
  let stack: SidebarStack;
  let sim: Simulator;

  beforeAll(async () => {
    sim = await startSim();
    stack = await startSidebarStack('main', {
      fakeNow: RUNTIME_NOW,
      flows: mainFlow(sim),
      credentials: { [CONFIG]: { apiKey: 'demo-admin-key', accessToken: 'demo-live-token' } },
    });
    await widenSidebar(stack.page);
    await openSidebar(stack.page);
  });
  afterAll(async () => {
    await stack?.close();
    await sim?.close();
  });

  it('is a sidebar tab labelled "Media Spaces"', async () => {
    expect(await sidebarTabName(stack.page, 'media-spaces')).toBe('Media Spaces');
    expect(await stack.page.locator('.ms-tl-row').count()).toBe(1);
  });

  it('shows "Evening news" with its next start at 18:00 in its zone, the zone named', async () => {
    const { page } = stack;
    const row = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    const label = row.locator('.ms-tl-bar-text[data-window="news"][data-phase="upcoming"]').first();
    await label.waitFor();
    expect(await label.textContent()).toMatch(/^Evening news 18:00–19:00 (GMT|BST) \(Europe\/London\)$/);
    const start = await label.getAttribute('data-start');
    const bar = row.locator(`.ms-tl-bar[data-window="news"][data-start="${start}"]`);
    expect(await bar.getAttribute('title')).toContain('schedule: News schedule');
    // the label is readable: not cut short by the next bar
    expect(await label.evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true);
    expect(await page.locator(`.ms-tl-row[data-node="${SCHEDULE}"] .ms-tl-title`).textContent()).toBe('News schedule');
    // the now line is drawn
    expect(await page.locator('.ms-tl-now').isVisible()).toBe(true);
  });

  it('shows a window in progress with elapsed and remaining time, and the past day with outcomes', async () => {
    const { page } = stack;
    const recording = page.locator('.ms-fl-recording .ms-fl-item');
    // the real schedule caught the window up at deploy; the real create-channel node made its channel on the
    // simulator and routed it back, so the tab shows the channel's state as the service returned it
    await page.locator('.ms-fl-recording .ms-fl-item', { hasText: 'Live desk' }).waitFor();
    const text = (await recording.first().textContent()) ?? '';
    expect(text).toContain('Live desk · News schedule');
    expect(sim.counts().channels).toBe(1);
    expect(text).toMatch(/DRAFT|INACTIVE|PENDING|ACTIVE|RECORDING/);
    expect(text).toMatch(/(19|20|21|22) min elapsed · (38|39|40|41) min left/);
    const active = page.locator('.ms-tl-bar-text[data-phase="active"]');
    expect(await active.first().textContent()).toMatch(/^Live desk .* · (38|39|40|41) min left$/);
    expect(await page.locator('.ms-tl-bar.ms-failed').count()).toBe(1);
    const failed = page.locator('.ms-tl-bar-text.ms-failed');
    expect(await failed.first().textContent()).toContain('channel failed: The service refused the channel name.');
    expect(await page.locator('.ms-fl-failures').textContent()).toContain('The service refused the channel name.');
    await screenshot(page, 'sidebar-timeline-24h.png');
  });

  it("moves a followed job's progress bar and ends it in its terminal state; failures give their reason", async () => {
    const { page } = stack;
    await page.locator('g.red-ui-flow-node-group[id="sidebarinjectko1"] .red-ui-flow-node-button').click();
    await page.locator('g.red-ui-flow-node-group[id="sidebarinjectok1"] .red-ui-flow-node-button').click();
    // a real job on the simulator (8 s long on its clock), followed by the real follow-job node
    const item = page.locator(`.ms-fl-item[data-key^="job|${FOLLOW}/"]`, { hasText: 'Transcode evening news' });
    await item.waitFor();
    const key = await item.getAttribute('data-key');
    const seen: number[] = [];
    let shot = false;
    for (let i = 0; i < 150; i++) {
      // one read of both: the tab renders a job's state and progress together, and two reads could fall on
      // either side of a render (97, then "succeeded")
      const { value, state } = await item.evaluate((root) => ({
        value: Number(root.querySelector('.ms-fl-progress')?.getAttribute('aria-valuenow')),
        state: root.getAttribute('data-state'),
      }));
      if (seen.at(-1) !== value) seen.push(value);
      if (!shot && value >= 30) {
        await screenshot(page, 'sidebar-jobs.png');
        shot = true;
      }
      if (state === 'succeeded') break;
      await page.waitForTimeout(150);
    }
    expect(seen.length, `progress seen: ${seen.join(', ')}`).toBeGreaterThanOrEqual(4);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    expect(seen.at(-1)).toBe(100);
    expect(await item.getAttribute('data-state')).toBe('succeeded');
    expect(await page.locator(`.ms-fl-done .ms-fl-item[data-key="${key}"]`).count()).toBe(1);
    const failed = page.locator(`.ms-fl-failures .ms-fl-item[data-key^="job|${FOLLOW}/"]`, {
      hasText: 'Legacy tape ingest',
    });
    await failed.waitFor({ timeout: 20_000 });
    expect(await failed.textContent()).toMatch(/ended in state failed/);
    expect(await failed.getAttribute('data-state')).toBe('failed');
  });

  it('reveals the node of a clicked item in the workspace', async () => {
    const { page } = stack;
    await page.locator(`.ms-fl-done .ms-fl-item[data-key^="job|${FOLLOW}/"]`).first().click();
    await expect.poll(() => isNodeHighlighted(page, FOLLOW), { timeout: 10_000 }).toBe(true);
  });

  it("pauses the schedule from the tab after a confirmation, through the schedule's own pause, and resumes it", async () => {
    const { page } = stack;
    // the channel's state as it changes on the service (read every 10 s while its window is open)
    await page.locator('.ms-fl-recording .ms-fl-item', { hasText: 'RECORDING' }).waitFor({ timeout: 60_000 });
    expect((await waitForStatus(page, SCHEDULE, (s) => s.text.startsWith('recording'))).text).toMatch(
      /^recording: Live desk until \d\d:\d\d$/,
    );
    await page.locator(`.ms-tl-row[data-node="${SCHEDULE}"] .ms-act-pause`).click();
    const confirm = page.locator('.red-ui-notification button.ms-confirm');
    await confirm.waitFor();
    expect(await page.locator('.red-ui-notification').last().textContent()).toContain(
      'Pause the schedule "News schedule"?',
    );
    await confirm.click();
    // the real node's badge: paused, its window in progress still recording until its end
    await waitForStatus(page, SCHEDULE, (s) => /^paused; recording: Live desk until/.test(s.text));
    const row = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    await row.locator('.ms-tl-state', { hasText: 'paused' }).waitFor();
    expect(await row.getAttribute('class')).toContain('ms-paused');
    expect(await row.locator('.ms-act-resume').count()).toBe(1);

    await row.locator('.ms-act-resume').click();
    await page.locator('.red-ui-notification button.ms-confirm').last().click();
    await waitForStatus(page, SCHEDULE, (s) => /^recording: Live desk until/.test(s.text));
    await page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]:not(.ms-paused)`).waitFor();
    expect(await row.locator('.ms-act-pause').count()).toBe(1);
  });

  it('shows a redeployed flow and a restarted runtime without a page reload', async () => {
    const { page } = stack;
    const title = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"] .ms-tl-title`);
    const flows = JSON.parse(readFileSync(join(stack.userDir, 'flows.json'), 'utf8')) as Record<string, unknown>[];
    const renamed = (name: string) => flows.map((n) => (n.id === SCHEDULE ? { ...n, name } : n));
    // a deploy through the admin API (another editor, or a CI pipeline)
    const deployed = await fetch(`${stack.nodeRed.url}/flows`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
      body: JSON.stringify(renamed('News schedule, redeployed')),
    });
    expect(deployed.status).toBe(204);
    await page.locator('.ms-tl-title', { hasText: 'News schedule, redeployed' }).waitFor();
    // a restart with other flows on disk: the editor reconnects and the retained signal says "new runtime"
    const renders = Number(await page.locator('.ms-sidebar').getAttribute('data-renders'));
    writeFileSync(join(stack.userDir, 'flows.json'), JSON.stringify(renamed('News schedule, after a restart')));
    await stack.restart();
    await page.locator('.ms-tl-title', { hasText: 'News schedule, after a restart' }).waitFor({ timeout: 30_000 });
    expect(Number(await page.locator('.ms-sidebar').getAttribute('data-renders'))).toBeGreaterThan(renders);
    expect(await title.count()).toBe(1);
  });

  it('switches to the 7-day view', async () => {
    const { page } = stack;
    // the mouse left over the sidebar header keeps the tab's "Media Spaces" tooltip open over the view buttons
    await page.mouse.move(400, 600);
    await page.locator('.red-ui-popover', { hasText: 'Media Spaces' }).waitFor({ state: 'hidden' });
    // the 24-hour view held a day of planned starts: the week's are asked for
    const asked = page.waitForRequest((r) => r.url().includes('media-spaces/activity?part=schedules&ahead=168'));
    await page.locator('.ms-view[data-view="7d"]').click();
    await asked;
    // a daily window: about 8 bars in a week (24 h back, 7 days ahead)
    await page.waitForFunction(() => document.querySelectorAll('.ms-tl-bar[data-window="news"]').length >= 7);
    expect(await page.locator('.ms-tl-day').count()).toBeGreaterThanOrEqual(16); // two zones, 8-9 days each
    // the week view reaches back 24 hours: yesterday's slot and its outcome
    expect(await page.locator('.ms-tl-bar-text.ms-ok').first().textContent()).toContain(
      'channel created · job succeeded',
    );
    await screenshot(page, 'sidebar-timeline-7d.png');
    await page.locator('.ms-view[data-view="24h"]').click();
    // the restart's lost connection is logged by the editor itself; nothing else
    expect(stack.pageErrors.filter((e) => !/ERR_CONNECTION_REFUSED|WebSocket/.test(e))).toEqual([]);
  });

  it('fits a pane of about 300 × 300 px: the timeline row and the jobs in flight readable, the full layout again with the whole height', async () => {
    const { page } = stack;
    const viewport = page.viewportSize() ?? { width: 1600, height: 1000 };
    await widenSidebar(page, 300);
    // Node-RED 5 opens the tab in the top half with Debug below; Node-RED 4 has one pane, so a short window makes it short
    await showSidebarTab(page, 'debug', '.red-ui-debug-content');
    if (!(await page.locator('.ms-sidebar').isVisible())) {
      await showSidebarTab(page, 'media-spaces', '.ms-sidebar');
      const { height } = await tabSize(page);
      await page.setViewportSize({ width: viewport.width, height: viewport.height - (height - 290) });
    }
    const pane = await tabSize(page);
    expect(pane.height).toBeLessThan(SHORT_TAB_PX);
    expect(pane.width).toBeLessThan(340);

    // a job in flight beside the window being recorded
    await page.locator('g.red-ui-flow-node-group[id="sidebarinjectok1"] .red-ui-flow-node-button').click();
    const job = page.locator('.ms-fl-jobs .ms-fl-item', { hasText: 'Transcode evening news' });
    await job.waitFor();
    // the day's window in progress and the job, each under its list's heading
    const recording = page.locator('.ms-fl-recording .ms-fl-item', { hasText: 'Live desk · News schedule' });
    const recordingHead = page.locator('.ms-fl-recording .ms-fl-head');
    const jobHead = page.locator('.ms-fl-jobs .ms-fl-head');
    expect(await recordingHead.textContent()).toBe('Windows in progress (1)');
    expect(await jobHead.textContent()).toBe('Jobs in progress (1)');
    const row = page.locator(`.ms-tl-row[data-node="${SCHEDULE}"]`);
    const body = await page.locator('.ms-body').boundingBox();
    // each in view without scrolling, none wider than the pane
    for (const [what, item] of [
      ['the schedule row', row],
      ['the heading "Windows in progress"', recordingHead],
      ['the recording', recording],
      ['the heading "Jobs in progress"', jobHead],
      ['the job', job],
    ] as const) {
      const box = await item.boundingBox();
      expect(box, what).not.toBeNull();
      if (!box || !body) continue;
      expect(box.y, `${what} starts in the pane`).toBeGreaterThanOrEqual(body.y - 1);
      expect(box.y + box.height, `${what} ends in the pane`).toBeLessThanOrEqual(body.y + body.height + 1);
      expect(box.x + box.width, `${what} fits the width`).toBeLessThanOrEqual(body.x + body.width + 1);
    }
    expect(await job.locator('.ms-fl-progress').isVisible()).toBe(true);
    expect(await recording.textContent()).toMatch(/min left/);
    expect(await page.locator('.ms-heading').isVisible()).toBe(false);
    const editor = await page.evaluate(
      () => (window as unknown as { RED: { settings: { version: string } } }).RED.settings.version,
    );
    await screenshot(page, `sidebar-pane-node-red-${editor.split('.')[0]}.png`, 'sidebar');

    // the whole height again (Debug's button hides its pane in 5; the window back to its size in 4): the full layout
    await page.setViewportSize(viewport);
    await openSidebar(page);
    expect((await tabSize(page)).height).toBeGreaterThanOrEqual(SHORT_TAB_PX);
    expect(await page.locator('.ms-heading').isVisible()).toBe(true);
    expect(await page.locator('.ms-tl-days').isVisible()).toBe(true);
    await job.waitFor({ state: 'detached', timeout: 30_000 });
  });
});

describe('Media Spaces sidebar on daylight-saving days', () => {
  let stack: SidebarStack;

  beforeAll(async () => {
    // 00:30 UTC on Sunday 29 March 2026: London's clocks go forward today, Sydney's go back on 5 April
    stack = await startSidebarStack('dst', {
      fakeNow: '2026-03-29T00:30:00Z',
      // the real schedule node, in a runtime whose clock reads that day
      flows: realScheduleFlow(`windows:
  - { id: news, name: Evening news, cron: "0 18 * * *", timezone: Europe/London, duration: 1h }
  - { id: sydney, name: Morning show, cron: "0 7 * * *", timezone: Australia/Sydney, duration: 2h }
`),
    });
    await widenSidebar(stack.page);
    await openSidebar(stack.page);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('draws the day boundaries in each zone: a 23-hour day in London, a 25-hour day in Sydney', async () => {
    const { page } = stack;
    const london = page
      .locator('.ms-tl-zone', { hasText: 'Europe/London' })
      .locator('.ms-tl-day[data-date="2026-03-29"]');
    await london.waitFor();
    expect(await london.getAttribute('data-hours')).toBe('23');
    expect(await london.textContent()).toBe('Sun 29 Mar · 23 h');
    // today's window, at 18:00 BST
    const bar = page.locator('.ms-tl-bar-text[data-window="news"]').first();
    expect(await bar.textContent()).toBe('Evening news 18:00–19:00 BST (Europe/London)');
    await page.locator('.ms-view[data-view="7d"]').click();
    const sydney = page
      .locator('.ms-tl-zone', { hasText: 'Australia/Sydney' })
      .locator('.ms-tl-day[data-date="2026-04-05"]');
    await sydney.waitFor();
    expect(await sydney.getAttribute('data-hours')).toBe('25');
    expect(await sydney.textContent()).toBe('Sun 5 Apr · 25 h');
    // every other day is 24 hours, without a label for it
    const hours = await page
      .locator('.ms-tl-day')
      .evaluateAll((cells) => cells.map((c) => (c as HTMLElement).dataset.hours));
    expect(hours.filter((h) => h !== '24').sort()).toEqual(['23', '25']);
    expect(stack.pageErrors).toEqual([]);
  });
});

describe('Media Spaces sidebar under adminAuth, for a user without media-spaces permissions', () => {
  let stack: SidebarStack;

  beforeAll(async () => {
    stack = await startSidebarStack('denied', {
      fakeNow: RUNTIME_NOW,
      flows: realScheduleFlow(`windows:
  - { id: news, name: Evening news, cron: "0 18 * * *", timezone: Europe/London, duration: 1h }
`),
      settings: adminAuthSettings(),
      login: { username: 'outsider', password: PASSWORDS.outsider },
    });
    await widenSidebar(stack.page);
    await openSidebar(stack.page);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('shows "no permission", nothing of the activity, and refuses actions (403)', async () => {
    const { page } = stack;
    await page.locator('.ms-message', { hasText: 'No permission' }).waitFor();
    expect(await page.locator('.ms-tl-bar').count()).toBe(0);
    expect(await page.locator('.ms-tl-row').count()).toBe(0);
    expect(await page.locator('.ms-act').count()).toBe(0);
    // even a request made by hand with the user's token is refused, and the schedule stays running
    const answers = await page.evaluate(async () => {
      const tokens = JSON.parse(localStorage.getItem('auth-tokens') ?? '{}') as { access_token?: string };
      const headers = { Authorization: `Bearer ${tokens.access_token}`, 'Content-Type': 'application/json' };
      const get = await fetch('media-spaces/activity', { headers });
      const post = await fetch('media-spaces/schedules/sidebarsched0001/pause', {
        method: 'POST',
        headers,
        body: '{}',
      });
      return { get: get.status, post: post.status, body: await get.text() };
    });
    expect(answers).toMatchObject({ get: 403, post: 403 });
    expect(answers.body).not.toContain('News schedule');
    expect(
      await page
        .locator('g.red-ui-flow-node-group[id="sidebarsched0001"] .red-ui-flow-node-status-label')
        .textContent(),
    ).toMatch(/^no server: recordings will not be stopped; next: .* Europe\/London$/);
  });
});

/**
 * The slots the 7-day view draws from an answer, as "node|window@start": `all` overlapping the view as of the
 * answer, `sure` those a minute clear of its edges (the view moves on with the clock while it is drawn).
 */
function weekSlots(snapshot: ActivitySnapshot): { all: Set<string>; sure: Set<string> } {
  const from = snapshot.now - 24 * 3_600_000;
  const to = snapshot.now + 7 * 24 * 3_600_000;
  const all = new Set<string>();
  const sure = new Set<string>();
  for (const schedule of snapshot.schedules) {
    for (const slot of schedule.slots) {
      const key = `${schedule.nodeId}|${slot.windowId}@${slot.start}`;
      if (slot.end > from - 60_000 && slot.start < to + 60_000) all.add(key);
      if (slot.end > from + 60_000 && slot.start < to - 60_000) sure.add(key);
    }
  }
  return { all, sure };
}

/** A tab with the real schedule node (no server: it only schedules) named "News schedule". */
function realScheduleFlow(yaml: string): Record<string, unknown>[] {
  return [
    { id: TAB, type: 'tab', label: 'sidebar', disabled: false, info: '' },
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      ...at,
      y: 100,
      name: 'News schedule',
      source: 'yaml',
      yaml,
      file: '',
      windows: [],
      scheduleId: 'sidebar',
      timezone: 'UTC',
      catchUp: true,
      server: '',
      wires: [[], [], []],
    },
  ];
}

// The scale test keeps the test-only nodes: no real node makes 500 jobs change every second.
describe('Media Spaces sidebar at scale: 50 schedules of 20 windows, 500 followed jobs', () => {
  let stack: SidebarStack;

  beforeAll(async () => {
    const [tab, schedule, jobs] = activityFlow({ copies: 50, windows: JSON.stringify(twentyWindows()) });
    stack = await startSidebarStack('scale', {
      flows: [tab, schedule, { ...jobs, bulk: 500, bulkMs: 1000 }],
    });
    await widenSidebar(stack.page);
  });
  afterAll(async () => {
    await stack?.close();
  });

  it('renders and keeps up with 500 job updates a second; prints the figures', async () => {
    const { page } = stack;
    // every render from here on, as the tab times it
    await page.evaluate(() => {
      const content = document.querySelector('.ms-sidebar') as HTMLElement;
      const log: { part: string; ms: number }[] = [];
      (window as unknown as { msRenders: typeof log }).msRenders = log;
      new MutationObserver(() =>
        log.push({ part: content.dataset.lastPart ?? '', ms: Number(content.dataset.lastRenderMs) }),
      ).observe(content, { attributes: true, attributeFilter: ['data-renders'] });
    });
    await openSidebar(page);
    await page.waitForFunction(() => document.querySelectorAll('.ms-tl-row').length === 50);
    const first = await page.evaluate(() => {
      const content = document.querySelector('.ms-sidebar') as HTMLElement;
      return {
        shown: Number(content.dataset.firstShownMs),
        render: Number(content.dataset.firstRenderMs),
        bars: document.querySelectorAll('.ms-tl-bar').length,
      };
    });
    await page.waitForTimeout(8000);
    const renders = await page.evaluate(
      () => (window as unknown as { msRenders: { part: string; ms: number }[] }).msRenders,
    );
    const jobs = renders.filter((r) => r.part === 'jobs').map((r) => r.ms);
    expect(await page.locator('.ms-fl-jobs .ms-fl-item').count()).toBe(500);
    // the 7-day zoom asks the runtime for a week of planned starts (the 24-hour view had a day of them)
    const weekAnswer = page.waitForResponse((r) => r.url().includes('media-spaces/activity?part=schedules&ahead=168'));
    const started = await page.evaluate(() => {
      (document.querySelector('.ms-view[data-view="7d"]') as HTMLElement).click();
      return performance.now();
    });
    const answered = await weekAnswer;
    const body = await answered.text();
    const wire = JSON.parse(body) as WireSnapshot;
    // 50 schedules x 20 daily windows: 7,000 planned slots and more in the week, packed (the 500 jobs come apart)
    expect(Buffer.byteLength(body)).toBeLessThan(200 * 1024);
    const expected = weekSlots(decodeActivity(wire, wire.now));
    expect(expected.sure.size).toBeGreaterThanOrEqual(50 * 20 * 7);
    await page.waitForFunction((n) => document.querySelectorAll('.ms-tl-bar').length >= n, expected.sure.size);
    const week = await page.evaluate(
      (t0) => ({ ms: performance.now() - t0, bars: document.querySelectorAll('.ms-tl-bar').length }),
      started,
    );
    // every slot of the week is drawn, each named on its bar, and nothing else
    const drawn = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.ms-tl-bar')].map((b) => ({
        key: `${b.closest<HTMLElement>('.ms-tl-row')?.dataset.node}|${b.dataset.window}@${b.dataset.start}`,
        title: b.title,
      })),
    );
    const drawnKeys = new Set(drawn.map((d) => d.key));
    expect([...expected.sure].filter((k) => !drawnKeys.has(k))).toEqual([]);
    expect(drawn.filter((d) => !expected.all.has(d.key))).toEqual([]);
    expect(drawn.every((d) => /^Window \d+ /.test(d.title))).toBe(true);
    // a frame after the week view was drawn: the browser still answers at once
    const frame = await page.evaluate(
      () =>
        new Promise<number>((resolve) => {
          const started = performance.now();
          requestAnimationFrame(() => resolve(performance.now() - started));
        }),
    );
    // a schedule changes (paused elsewhere): the whole state again, but only its row is touched
    await page.locator('.ms-view[data-view="24h"]').click();
    await page.evaluate(() => fetch('media-spaces/schedules/sidebarsched0001-7/pause', { method: 'POST' }));
    await page.locator('.ms-tl-row[data-node="sidebarsched0001-7"].ms-paused').waitFor();
    await page.waitForTimeout(1200);
    const all = await page.evaluate(() =>
      (window as unknown as { msRenders: { part: string; ms: number }[] }).msRenders.filter(
        (r) => r.part === 'schedules',
      ),
    );
    const sorted = [...jobs].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    console.log(
      [
        `[sidebar scale, browser] first state shown ${first.shown} ms after the tab was created (fetch + render); its render ${first.render} ms, ${first.bars} bars (24 h view)`,
        `[sidebar scale, browser] full-state updates after a schedule change (24 h view): ${all.map((r) => r.ms.toFixed(1)).join(', ')} ms`,
        `[sidebar scale, browser] job updates in 8 s: ${jobs.length} renders, median ${median.toFixed(1)} ms, max ${Math.max(...jobs).toFixed(1)} ms`,
        `[sidebar scale, browser] switch to 7 d: a week of planned starts fetched (${(Buffer.byteLength(body) / 1024).toFixed(0)} KB) and drawn ${week.ms.toFixed(1)} ms after the click, ${week.bars} bars; next frame after ${frame.toFixed(1)} ms`,
      ].join('\n'),
    );
    // the 500 jobs change together once a second: one fetch for each change (8 in 8 s, 7 when the
    // window's edges fall just after two changes), and never a storm (at most two a second)
    expect(jobs.length).toBeGreaterThanOrEqual(7);
    expect(jobs.length).toBeLessThanOrEqual(20);
    expect(stack.pageErrors).toEqual([]);
  });
});
