import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closeAllTrays,
  closeNode,
  deploy,
  dismissNotifications,
  dropFromPalette,
  editorNode,
  openNode,
  waitForStatus,
  wire,
} from './support/editor';
import { addSimulatorServer, type Stack, screenshot, startStack } from './support/stack';

/**
 * A recording flow built as a new user builds it, through the editor only: four nodes dragged
 * from the palette (schedule → create channel → back to the schedule; the schedule's end →
 * submit job → follow job), wired by dragging, each set in its dialog (the server added from the
 * schedule's, the follow-up chosen with the picker and the inputs form: no JSON typed), deployed;
 * then one window is recorded, stopped, and its recording processed by the follow-up job.
 */

const TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000006';

let stack: Stack;
const ids: Record<'schedule' | 'create' | 'submit' | 'follow', string> = {
  schedule: '',
  create: '',
  submit: '',
  follow: '',
};

beforeAll(async () => {
  stack = await startStack('followup-trial');
  await dismissNotifications(stack.page);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

interface AdminChannel {
  recording?: { outputs?: Array<{ location_url: string }> };
}
interface AdminJob {
  state: string;
  input: unknown;
}

async function admin<T>(what: 'jobs' | 'channels'): Promise<T[]> {
  const info = stack.sim.info();
  const res = await fetch(`${info.admin_url}/spaces/${info.spaces[0].space_id}/${what}`);
  const body = (await res.json()) as Record<string, T[]>;
  return body[what];
}

/** Chooses the server added in the schedule's dialog, in a node's own dialog. */
async function chooseServer(id: string): Promise<void> {
  const { page } = stack;
  await openNode(page, id);
  await page.locator('#node-input-server').selectOption({ label: 'Simulator' });
  await closeNode(page);
}

describe('the trial flow, built through the editor', () => {
  it('palette: four nodes dropped and wired by dragging', async () => {
    const { page } = stack;
    ids.schedule = await dropFromPalette(page, 'media-spaces-schedule', 200, 120);
    ids.create = await dropFromPalette(page, 'media-spaces-create-channel', 480, 120);
    ids.submit = await dropFromPalette(page, 'media-spaces-submit-job', 480, 260);
    ids.follow = await dropFromPalette(page, 'media-spaces-follow-job', 720, 260);
    await wire(page, ids.schedule, 0, ids.create);
    await wire(page, ids.create, 0, ids.schedule);
    await wire(page, ids.schedule, 1, ids.submit);
    await wire(page, ids.submit, 0, ids.follow);
    expect(await editorNode(page, ids.schedule)).toMatchObject({ incomingLinks: 1, outgoingLinks: 2 });
    expect(await editorNode(page, ids.follow)).toMatchObject({ incomingLinks: 1 });
  });

  it('the schedule dialog: server added, a short window, the follow-up by its picker and form', async () => {
    const { page } = stack;
    await openNode(page, ids.schedule);
    await addSimulatorServer(stack);
    await page.click('#node-config-dialog-ok');
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });

    // the window list instead of the sample YAML: one window every 20 seconds, 10 seconds long
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    const row = page.locator('#node-input-windows-container li').first();
    await row.locator('.ms-w-cron').waitFor({ state: 'visible', timeout: 10_000 });
    await row.locator('.ms-w-cron').fill('*/20 * * * * *');
    await row.locator('.ms-w-duration').fill('10s');

    await row.locator('.ms-w-fu-search').fill('transcode recording');
    // the list is drawn in batches while its pages load: the pick shows as the row's selection, then the
    // workflow's inputs come from the server (slower on a loaded machine)
    const pickRow = row.locator(`.ms-w-fu-list .ms-wf-row[data-id="${TRANSCODE}"]`);
    await pickRow.click();
    await row.locator(`.ms-w-fu-list .ms-wf-row.selected[data-id="${TRANSCODE}"]`).waitFor({ timeout: 10_000 });
    const media = row.locator('.ms-w-fu-inputs input[data-nickname="recording"]');
    await media.waitFor({ timeout: 30_000 });
    await media.locator('xpath=..').locator('select.ms-input-choice').selectOption({ label: 'the recording' });
    await row.locator('.ms-w-fu-inputs input[data-variable="Programme"]').fill('Trial programme');
    await expect
      .poll(async () => (await page.locator('#ms-schedule-preview').textContent()) ?? '', { timeout: 10_000 })
      .toContain('*/20 * * * * *');
    expect(await page.locator('#ms-schedule-preview .ms-schedule-issues').count()).toBe(0);
    await screenshot(page, 'followup-trial-schedule.png', 'tray');
    await closeNode(page);
    expect((await editorNode(page, ids.schedule))?.valid).toBe(true);
  });

  it('the other dialogs: each takes the server', async () => {
    for (const id of [ids.create, ids.submit, ids.follow]) await chooseServer(id);
    for (const id of Object.values(ids)) expect((await editorNode(stack.page, id))?.valid).toBe(true);
  });

  it('deployed: a window is recorded, stopped, and its recording processed by the follow-up job', async () => {
    const { page, sim } = stack;
    await deploy(page);
    // a window within 20 s, 10 s of recording, the stop, the finished recording (2 s), a 6 s job
    const status = await waitForStatus(page, ids.follow, (s) => s.fill === 'green' || s.fill === 'red', 120_000);
    expect(status).toMatchObject({ fill: 'green', text: expect.stringMatching(/^succeeded/) });

    const routes = sim.requests().map((r) => `${r.route} ${r.status}`);
    expect(routes).toContain('create_channel 201');
    expect(routes.some((r) => /^stop_channel 2\d\d$/.test(r))).toBe(true);
    expect(routes).toContain('submit 200');
    // the job was given the recording's own file, by the template the form wrote
    const recorded = (await admin<AdminChannel>('channels'))
      .map((c) => c.recording?.outputs?.[0]?.location_url)
      .filter((url): url is string => typeof url === 'string');
    const done = (await admin<AdminJob>('jobs')).filter((j) => j.state === 'succeeded');
    expect(done.length).toBeGreaterThanOrEqual(1);
    const given = JSON.stringify(done[0].input);
    expect(recorded.some((url) => url.endsWith('.mxf') && given.includes(url))).toBe(true);
    expect(given).toContain('Trial programme');
    await screenshot(page, 'followup-trial-flow.png');
  }, 180_000);

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
