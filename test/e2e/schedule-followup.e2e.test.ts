import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, deploy, editorNode, importNodes, openNode } from './support/editor';
import { type Stack, screenshot, simulatorServer, startStack } from './support/stack';

/**
 * A window's follow-up in the schedule dialog, as an operator sets it: the workflow picked by
 * name in submit job's picker, its declared inputs as a form, the recording named by a choice
 * ("the recording") instead of a JSON path, the document deployed with the template the runtime
 * reads; a follow-up without a workflow marked on its field and the node invalid; and an older
 * follow-up written as JSON shown in the form, with what the form has no place for kept.
 */

const SERVER = 'e2e0fuform0srv01';
const NEW = 'e2e0fuform0new01';
const OLD = 'e2e0fuform0old01';
const TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000006';
const RECORDING = '{{channel.recording.outputs[0].location_url}}';

const OLD_YAML = [
  'windows:',
  '  - id: late-news',
  '    cron: "0 22 * * *"',
  '    duration: 30m',
  '    followup:',
  `      workflow_id: ${TRANSCODE}`,
  '      job_name: "Proxy of {{channel.name}}"',
  '      variables:',
  '        Programme: "{{window.name}}"',
  '        Extra: 5',
  '      media_nicknames:',
  `        recording: "${RECORDING}"`,
  '',
].join('\n');

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('schedule-followup');
  await importNodes(stack.page, [
    simulatorServer(stack, SERVER),
    {
      id: NEW,
      type: 'media-spaces-schedule',
      name: 'Studio B',
      source: 'editor',
      windows: [{ id: 'evening-news', name: 'Evening news', cron: '0 18 * * mon-fri', duration: '1h' }],
      server: SERVER,
      x: 200,
      y: 100,
      wires: [[], [], []],
    },
    {
      id: OLD,
      type: 'media-spaces-schedule',
      name: 'Older follow-up',
      source: 'yaml',
      yaml: OLD_YAML,
      server: SERVER,
      x: 200,
      y: 200,
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

const rows = () => stack.page.locator('#node-input-windows-container li');
const row = (i = 0) => rows().nth(i);
const followupJson = async (i = 0) => JSON.parse((await row(i).locator('.ms-w-followup').inputValue()) || '{}');
const workflowError = async (i = 0) => ({
  invalid: await row(i)
    .locator('.ms-w-fu-search')
    .evaluate((el) => el.classList.contains('input-error')),
  text: ((await row(i).locator('.ms-w-fu-workflow-error').textContent()) ?? '').trim(),
});
/** The flows the runtime has deployed (what it reads the schedule from). */
const deployedNode = (id: string) =>
  stack.page.evaluate(async (nodeId) => {
    const flows = (await (await fetch('flows')).json()) as Array<Record<string, unknown>>;
    return flows.find((n) => n.id === nodeId) ?? null;
  }, id);

describe('the schedule follow-up as a form', () => {
  it('picks the workflow by name and fills its inputs: the recording by name, a template in a text field', async () => {
    const { page } = stack;
    await openNode(page, NEW);
    const picker = row().locator('.ms-w-fu-list');
    await row().locator('.ms-w-fu-search').fill('transcode recording');
    const choice = picker.locator(`.ms-wf-row[data-id="${TRANSCODE}"]`);
    await choice.waitFor({ timeout: 10_000 });
    // found by its name, shown by its name
    expect(await choice.locator('.ms-wf-name').textContent()).toBe('Transcode recording to proxy');
    await choice.click();

    // the workflow's declared inputs, as in submit job: Recording (media) and Programme (String)
    const media = row().locator('.ms-w-fu-inputs input[data-nickname="recording"]');
    await media.waitFor({ timeout: 10_000 });
    const mediaRow = media.locator('xpath=..');
    expect(await mediaRow.locator('label').textContent()).toContain('Recording (media)');
    const offered = await mediaRow.locator('select.ms-input-choice option').allTextContents();
    expect(offered).toEqual(['a value', 'the recording', 'its proxy']);
    await mediaRow.locator('select.ms-input-choice').selectOption({ label: 'the recording' });
    expect(await media.inputValue()).toBe(RECORDING);
    // a template is judged when the slot fills it in, not here
    expect(await media.evaluate((el) => el.classList.contains('input-error'))).toBe(false);

    const programme = row().locator('.ms-w-fu-inputs input[data-variable="Programme"]');
    await programme.fill('{{window.name}}');
    await row().locator('.ms-w-fu-jobname').fill('Proxy of {{channel.name}}');

    expect(await followupJson()).toEqual({
      workflow_id: TRANSCODE,
      media_nicknames: { recording: RECORDING },
      variables: { Programme: '{{window.name}}' },
      job_name: 'Proxy of {{channel.name}}',
    });
    expect((await workflowError()).invalid).toBe(false);
    // the runtime's preview accepts the window with its follow-up
    await expect
      .poll(async () => (await page.locator('#ms-schedule-preview').textContent()) ?? '', { timeout: 10_000 })
      .toContain('Evening news');
    expect(await page.locator('#ms-schedule-preview .ms-schedule-issues').count()).toBe(0);
    await media.scrollIntoViewIfNeeded();
    await screenshot(page, 'schedule-followup-form.png', 'tray');
    await closeNode(page);
  });

  it('deploys the document the runtime reads, with the template of "the recording"', async () => {
    const { page } = stack;
    expect((await editorNode(page, NEW))?.valid).toBe(true);
    await deploy(page);
    const deployed = (await deployedNode(NEW)) as { windows: Array<{ id: string; followup: unknown }> } | null;
    expect(deployed?.windows).toEqual([
      expect.objectContaining({
        id: 'evening-news',
        followup: {
          workflow_id: TRANSCODE,
          media_nicknames: { recording: RECORDING },
          variables: { Programme: '{{window.name}}' },
          job_name: 'Proxy of {{channel.name}}',
        },
      }),
    ]);
  });

  it('reopened, the picker shows the chosen workflow and the form the chosen recording', async () => {
    const { page } = stack;
    await openNode(page, NEW);
    const selected = row().locator('.ms-w-fu-list .ms-wf-row.selected');
    await selected.waitFor({ timeout: 10_000 });
    expect(await selected.getAttribute('data-id')).toBe(TRANSCODE);
    const media = row().locator('.ms-w-fu-inputs input[data-nickname="recording"]');
    await media.waitFor({ timeout: 10_000 });
    const chosen = media.locator('xpath=..').locator('select.ms-input-choice option:checked');
    expect(await chosen.textContent()).toBe('the recording');
  });

  it('a follow-up without a workflow is marked on the workflow field, and the node is invalid', async () => {
    const { page } = stack;
    await page.locator('.red-ui-editableList-addButton').filter({ visible: true }).click();
    await expect.poll(() => rows().count()).toBe(2);
    expect(await workflowError(1)).toEqual({ invalid: false, text: '' });
    await row(1).locator('.ms-w-fu-jobname').fill('Archive {{window.name}}');
    expect(await workflowError(1)).toEqual({
      invalid: true,
      text: expect.stringContaining("Choose the follow-up's workflow"),
    });
    await closeNode(page);
    const node = await editorNode(page, NEW);
    expect(node?.valid).toBe(false);
    expect(JSON.stringify(node?.validationErrors)).toContain("window-2: Choose the follow-up's workflow");

    // picking one clears both
    await openNode(page, NEW);
    await row(1).locator('.ms-w-fu-search').fill('transcode recording');
    await row(1).locator(`.ms-w-fu-list .ms-wf-row[data-id="${TRANSCODE}"]`).click();
    expect((await workflowError(1)).invalid).toBe(false);
    expect(await followupJson(1)).toEqual({ workflow_id: TRANSCODE, job_name: 'Archive {{window.name}}' });
    await closeNode(page);
    expect((await editorNode(page, NEW))?.valid).toBe(true);
  });

  it('an older follow-up written as JSON opens in the form; what the form cannot show is kept', async () => {
    const { page } = stack;
    await openNode(page, OLD);
    // the YAML says where the form is
    expect(await page.locator('#ms-schedule-list-tip').textContent()).toContain(
      '"List in the editor" gives each window a form',
    );
    await page.locator('#node-input-source').selectOption('editor');
    expect(await page.locator('#ms-schedule-list-tip').isVisible()).toBe(false);
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    const media = row().locator('.ms-w-fu-inputs input[data-nickname="recording"]');
    await media.waitFor({ timeout: 10_000 });
    expect(await media.inputValue()).toBe(RECORDING);
    expect(await media.locator('xpath=..').locator('select.ms-input-choice option:checked').textContent()).toBe(
      'the recording',
    );
    const programme = row().locator('.ms-w-fu-inputs input[data-variable="Programme"]');
    expect(await programme.inputValue()).toBe('{{window.name}}');
    expect(await row().locator('.ms-w-fu-list .ms-wf-row.selected').getAttribute('data-id')).toBe(TRANSCODE);

    // the proxy instead: only that input changes; the undeclared Extra (a number) stays as it was
    await media.locator('xpath=..').locator('select.ms-input-choice').selectOption({ label: 'its proxy' });
    expect(await followupJson()).toEqual({
      workflow_id: TRANSCODE,
      job_name: 'Proxy of {{channel.name}}',
      variables: { Programme: '{{window.name}}', Extra: 5 },
      media_nicknames: { recording: '{{channel.recording.outputs[1].location_url}}' },
    });

    // a continuous recording has no proxy: it is no longer offered
    await row().locator('.ms-w-ch-continuous').check();
    await expect
      .poll(() => media.locator('xpath=..').locator('select.ms-input-choice option').allTextContents())
      .toEqual(['a value', 'the recording']);
    await closeNode(page, 'cancel');
  });

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
