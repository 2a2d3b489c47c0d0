import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, importNodes, openNode } from './support/editor';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * The schedule dialog as an operator uses it: a window's days and start time
 * write the cron, field errors show on their field as typed, the channel and
 * follow-up have form fields beside their JSON, which zone wins is said next
 * to both zone fields, the YAML box enlarges, and switching from the list
 * back to a commented YAML asks before dropping the comments.
 */

const SCHEDULE = 'e2e0schedform001';
const FOLLOW_WORKFLOW = 'aaaaaaaa-0000-4000-8000-000000000002';
const YAML = [
  '# studio A, weekday news',
  'windows:',
  '  - id: evening-news',
  '    name: Evening news',
  '    cron: "0 18 * * mon-fri" # after the six o\'clock bulletin',
  '    duration: 1h30m',
  '    channel:',
  '      name: "News {{slot.date}}"',
  '      tags: [news]',
  '',
].join('\n');

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('schedule-form');
  await importNodes(stack.page, [
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Studio A',
      source: 'yaml',
      yaml: YAML,
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

const row = () => stack.page.locator('#node-input-windows-container li').first();
const cron = () => row().locator('.ms-w-cron').inputValue();
const day = (d: number) => row().locator(`.ms-w-day[data-day="${d}"]`);
const checkedDays = () =>
  row()
    .locator('.ms-w-day')
    .evaluateAll((boxes) =>
      boxes
        .filter((b) => (b as HTMLInputElement).checked)
        .map((b) => Number(b.getAttribute('data-day')))
        .sort((a, b) => a - b),
    );
const errorOf = async (cls: string) => ({
  invalid: await row()
    .locator(`.${cls}`)
    .evaluate((el) => el.classList.contains('input-error')),
  text: ((await row().locator(`.${cls}-error`).textContent()) ?? '').trim(),
});
/** The YAML box's text, through the editor handle the dialog keeps on the node while it is open. */
const yaml = () =>
  stack.page.evaluate(
    (id) =>
      (
        window as unknown as {
          RED: { nodes: { node(id: string): { yamlEditor?: { getValue(): string } } } };
        }
      ).RED.nodes
        .node(id)
        .yamlEditor?.getValue() ?? '',
    SCHEDULE,
  );
const previewText = async () => (await stack.page.locator('#ms-schedule-preview').textContent()) ?? '';

describe('schedule window form', () => {
  it('shows the YAML window in the form: days of the week and start time from its cron', async () => {
    const { page } = stack;
    await openNode(page, SCHEDULE);
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    await row().locator('.ms-w-cron').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await cron()).toBe('0 18 * * mon-fri');
    expect(await checkedDays()).toEqual([1, 2, 3, 4, 5]);
    expect(await row().locator('.ms-w-time').inputValue()).toBe('18:00');
  });

  it('days and start time write the cron, and the preview follows', async () => {
    const { page } = stack;
    await day(5).uncheck();
    await day(0).check();
    expect(await cron()).toBe('0 18 * * mon-thu,sun');
    await row().locator('.ms-w-time').fill('06:30');
    expect(await cron()).toBe('30 6 * * mon-thu,sun');
    await expect.poll(previewText, { timeout: 10_000 }).toContain('30 6 * * mon-thu,sun');
    await expect.poll(() => page.locator('#ms-schedule-preview ol li').count()).toBe(5);
  });

  it('the cron text stays editable; the form follows it or says "custom cron"', async () => {
    await row().locator('.ms-w-cron').fill('15 7 * * sat,sun');
    expect(await checkedDays()).toEqual([0, 6]);
    expect(await row().locator('.ms-w-time').inputValue()).toBe('07:15');
    expect(await row().locator('.ms-w-cron-note').isVisible()).toBe(false);

    await row().locator('.ms-w-cron').fill('0 */2 * * *');
    expect(await row().locator('.ms-w-cron-note').textContent()).toMatch(/Custom cron/);
    expect(await day(1).isDisabled()).toBe(true);
    expect(await row().locator('.ms-w-time').isDisabled()).toBe(true);

    await row().locator('.ms-w-cron').fill('0 18 * * mon-fri');
    expect(await checkedDays()).toEqual([1, 2, 3, 4, 5]);
    expect(await day(1).isDisabled()).toBe(false);
  });

  it('flags a bad cron, duration and id on the field as they are typed, a bad time zone when it is left', async () => {
    const { page } = stack;
    // a zone is checked when the field is left (a name is wrong halfway through typing it)
    await row().locator('.ms-w-timezone').fill('Europe/Londn');
    await row().locator('.ms-w-timezone').press('Tab');
    expect(await errorOf('ms-w-timezone')).toEqual({
      invalid: true,
      text: expect.stringContaining('"Europe/Londn" is not a time zone'),
    });
    await row().locator('.ms-w-timezone').fill('America/New_York');
    expect((await errorOf('ms-w-timezone')).invalid).toBe(false);
    // IANA names are offered as the user types
    const zones = await page
      .locator('#ms-schedule-zones option')
      .evaluateAll((o) => o.map((x) => x.getAttribute('value')));
    expect(zones.length).toBeGreaterThan(300);
    expect(zones).toEqual(expect.arrayContaining(['Europe/London', 'America/New_York', 'UTC']));
    expect(await row().locator('.ms-w-timezone').getAttribute('list')).toBe('ms-schedule-zones');

    await row().locator('.ms-w-cron').fill('61 25 * * *');
    const bad = await errorOf('ms-w-cron');
    expect(bad.invalid).toBe(true);
    expect(bad.text).toMatch(/minute 61 out of range/);
    await row().locator('.ms-w-cron').fill('0 18 * * mon-fri');
    expect((await errorOf('ms-w-cron')).invalid).toBe(false);

    await row().locator('.ms-w-duration').fill('soon');
    expect(await errorOf('ms-w-duration')).toEqual({ invalid: true, text: expect.stringContaining('not a duration') });
    await row().locator('.ms-w-duration').fill('1h30m');
    expect((await errorOf('ms-w-duration')).invalid).toBe(false);

    await row().locator('.ms-w-id').fill('evening news');
    expect((await errorOf('ms-w-id')).invalid).toBe(true);
    await row().locator('.ms-w-id').fill('evening-news');
    expect((await errorOf('ms-w-id')).invalid).toBe(false);

    // the node's own zone field too
    await page.fill('#node-input-timezone', 'Mars/Olympus');
    await page.press('#node-input-timezone', 'Tab');
    expect(await page.locator('#node-input-timezone-error').textContent()).toContain(
      '"Mars/Olympus" is not a time zone',
    );
    expect(await page.locator('#node-input-timezone').evaluate((el) => el.classList.contains('input-error'))).toBe(
      true,
    );
    await page.fill('#node-input-timezone', 'Europe/London');
    expect(await page.locator('#node-input-timezone-error').isVisible()).toBe(false);
  });

  it('says next to both zone fields that the window zone wins over the node zone', async () => {
    const { page } = stack;
    expect(await row().locator('.ms-w-timezone-note').textContent()).toMatch(/window's own zone wins over the node's/);
    expect(await page.locator('#node-input-timezone-note').textContent()).toMatch(/a window's zone wins/);
    // and the preview applies it: the window's New York, not the node's London
    await expect.poll(previewText, { timeout: 10_000 }).toContain('America/New_York');
  });

  it('channel and follow-up fields write their JSON, which keeps every other field', async () => {
    const { page } = stack;
    const channelJson = async () => JSON.parse((await row().locator('.ms-w-channel').inputValue()) || '{}');
    expect(await row().locator('.ms-w-ch-name').inputValue()).toBe('News {{slot.date}}');
    await row().locator('.ms-w-ch-continuous').check();
    await row().locator('.ms-w-ch-recording').fill('3');
    await row().locator('.ms-w-ch-description').fill('Studio A evening news');
    expect(await channelJson()).toEqual({
      name: 'News {{slot.date}}',
      tags: ['news'],
      continuous_recording: true,
      recording_duration: 3,
      description: 'Studio A evening news',
    });
    // the JSON's edits show in the fields
    await row()
      .locator('.ms-w-channel')
      .fill(JSON.stringify({ name: 'Late news', tags: ['news'], continuous_recording: true, recording_duration: 3 }));
    expect(await row().locator('.ms-w-ch-name').inputValue()).toBe('Late news');
    expect(await row().locator('.ms-w-ch-description').inputValue()).toBe('');
    await row().locator('.ms-w-channel').fill('{"name": ');
    expect(await errorOf('ms-w-channel')).toEqual({ invalid: true, text: expect.stringContaining('not JSON') });
    await row()
      .locator('.ms-w-channel')
      .fill(JSON.stringify({ name: 'Late news', tags: ['news'], continuous_recording: true, recording_duration: 3 }));
    expect((await errorOf('ms-w-channel')).invalid).toBe(false);

    // the workflow is picked from the service's list (schedule-followup.e2e.test.ts); without a server, the JSON
    await row()
      .locator('.ms-w-followup')
      .fill(JSON.stringify({ workflow_id: FOLLOW_WORKFLOW }));
    await row().locator('.ms-w-fu-jobname').fill('Archive {{window.name}}');
    expect(JSON.parse(await row().locator('.ms-w-followup').inputValue())).toEqual({
      workflow_id: FOLLOW_WORKFLOW,
      job_name: 'Archive {{window.name}}',
    });
    await expect.poll(() => page.locator('#ms-schedule-preview ol li').count(), { timeout: 10_000 }).toBe(5);
    await row().locator('.ms-w-time').scrollIntoViewIfNeeded();
    await screenshot(page, 'schedule-form.png');
  });

  it('switching back to the commented YAML asks first: keep leaves the YAML as it was', async () => {
    const { page } = stack;
    await page.locator('#node-input-source').selectOption('yaml');
    const question = page.locator('.ms-schedule-comments-question');
    await question.waitFor({ state: 'visible', timeout: 10_000 });
    expect(await question.textContent()).toMatch(/comments/);
    await page.click('#ms-schedule-comments-keep');
    expect(await yaml()).toBe(YAML);
  });

  it('... and replace writes the list as YAML, comments dropped', async () => {
    const { page } = stack;
    await page.locator('#node-input-source').selectOption('editor');
    // the list is rebuilt from the YAML once the runtime answers; typing before that went into the old list
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    await row().locator('.ms-w-cron').waitFor({ state: 'visible', timeout: 10_000 });
    await row().locator('.ms-w-cron').fill('45 19 * * mon-fri');
    await page.locator('#node-input-source').selectOption('yaml');
    await page.click('#ms-schedule-comments-replace');
    await expect.poll(yaml, { timeout: 10_000 }).toContain('45 19 * * mon-fri');
    expect(await yaml()).not.toContain('#');
  });

  it('the YAML box enlarges: in a tray of its own, and with the dialog', async () => {
    const { page } = stack;
    const box = page.locator('#node-input-yaml-editor');
    const before = (await box.boundingBox())?.height ?? 0;
    await page.click('#node-input-yaml-expand');
    const big = page.locator('#node-input-text');
    await big.waitFor({ state: 'visible' });
    expect((await big.boundingBox())?.height ?? 0).toBeGreaterThan(before);
    // edit in the big editor, as a user types; Done carries it back
    await big.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n# enlarged');
    await page.locator('.red-ui-tray').last().locator('#node-dialog-ok').click();
    await big.waitFor({ state: 'detached' });
    expect(await yaml()).toContain('# enlarged');

    // a taller dialog gives the YAML box the height
    await page.setViewportSize({ width: 1400, height: 1300 });
    await expect
      .poll(async () => (await box.boundingBox())?.height ?? 0, { timeout: 5_000 })
      .toBeGreaterThan(before + 200);
    await page.setViewportSize({ width: 1400, height: 900 });
    await closeNode(page);
  });

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
