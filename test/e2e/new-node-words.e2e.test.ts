import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  closeAllTrays,
  closeNode,
  editorNode,
  importNodes,
  openNode,
  pickWorkflowRow,
  waitForForm,
} from './support/editor';
import { type Stack, simulatorServer, startStack } from './support/stack';

/**
 * What a new node's dialog says before the user has changed anything: create channel's
 * recording_duration named for what it is (not "Window", the schedule's word); the coordination
 * select showing "none: this instance alone" rather than "Add new Redis coordination…" as if
 * chosen; a new schedule's window list holding no channel field the user cannot see; and a submit
 * job fed by a schedule's follow-up not marking as missing an input the message gives.
 */

const SERVER = 'e2e0nnwserver001';
const SCHEDULE = 'e2e0nnwschedul01';
const FED = 'e2e0nnwsubmitfed';
const ALONE = 'e2e0nnwsubmitaln';
const LOUDNESS = 'aaaaaaaa-0000-4000-8000-000000000013';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('new-node-words');
  await importNodes(stack.page, [
    simulatorServer(stack, SERVER),
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Studio A',
      source: 'yaml',
      yaml: 'windows:\n  - id: news\n    cron: "0 18 * * *"\n    duration: 1h\n',
      x: 160,
      y: 300,
      wires: [[], [FED], []],
    },
    { id: FED, type: 'media-spaces-submit-job', name: '', server: SERVER, x: 420, y: 300, wires: [[]] },
    { id: ALONE, type: 'media-spaces-submit-job', name: '', server: SERVER, x: 420, y: 400, wires: [[]] },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

/** Drags a node of `type` from the palette onto the canvas, as a user adds one; resolves with its id. */
async function addFromPalette(page: Page, type: string, x: number, y: number): Promise<string> {
  const before = await idsOfType(page, type);
  await page
    .locator(`.red-ui-palette-node[data-palette-type="${type}"]`)
    .dragTo(page.locator('#red-ui-workspace-chart'), { targetPosition: { x, y } });
  await expect.poll(async () => (await idsOfType(page, type)).length).toBe(before.length + 1);
  const id = (await idsOfType(page, type)).find((i) => !before.includes(i)) as string;
  return id;
}

function idsOfType(page: Page, type: string): Promise<string[]> {
  return page.evaluate(
    (t) =>
      (window as unknown as { RED: { nodes: { filterNodes(f: { type: string }): Array<{ id: string }> } } }).RED.nodes
        .filterNodes({ type: t })
        .map((n) => n.id),
    type,
  );
}

/** The text of the form row holding `selector`, spaces collapsed. */
const rowOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => (el.closest('.form-row')?.textContent ?? '').replace(/\s+/g, ' ').trim());

describe('a new node, as the palette gives it', () => {
  it('create channel\'s recording_duration says what it keeps, not "Window"', async () => {
    const { page } = stack;
    const id = await addFromPalette(page, 'media-spaces-create-channel', 200, 100);
    await openNode(page, id);
    const row = await rowOf(page, '#node-input-recordingDuration');
    expect(row).not.toMatch(/window/i);
    expect(row).toBe('Keep last hours of a continuous recording');
    await closeNode(page, 'cancel');
  });

  it('the coordination select of a new schedule and follow job reads "none: this instance alone"', async () => {
    const { page } = stack;
    for (const [type, x] of [
      ['media-spaces-schedule', 450],
      ['media-spaces-follow-job', 650],
    ] as const) {
      const id = await addFromPalette(page, type, x, 100);
      await openNode(page, id);
      const chosen = page.locator('#node-input-coordination option:checked');
      await expect.poll(() => chosen.textContent(), { timeout: 5_000 }).toBe('none: this instance alone');
      expect(await page.locator('#node-input-coordination option').allTextContents(), type).not.toContainEqual(
        expect.stringMatching(/^Add new/),
      );
      await closeNode(page, 'cancel');
      // saved as Node-RED saves its own "none": empty, this instance alone
      expect((await editorNode(page, id))?.coordination, type).toBe('');
    }
  });

  it("a new schedule switched to its window list holds no channel field it doesn't show", async () => {
    const { page } = stack;
    const id = await addFromPalette(page, 'media-spaces-schedule', 450, 180);
    await openNode(page, id);
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    const row = page.locator('#node-input-windows-container li').first();
    await row.locator('.ms-w-cron').waitFor({ state: 'visible', timeout: 10_000 });
    expect(await row.locator('.ms-w-id').inputValue()).toBe('evening-news');
    // every channel field the sample sets is one the list shows: nothing rides along unseen
    expect(await row.locator('.ms-w-channel').inputValue()).toBe('');
    await closeNode(page, 'cancel');
  });
});

describe("submit job fed by a schedule's follow-up", () => {
  const form = () => stack.page.locator('#node-media-spaces-inputs-form');
  const channels = () => form().locator('select[data-label="delivery"][data-parameter="Channels"]');
  const chooseLoudness = async () => {
    await stack.page.fill('#node-media-spaces-workflow-search', LOUDNESS);
    await pickWorkflowRow(stack.page.locator('#node-media-spaces-workflow-list'), LOUDNESS);
    await waitForForm(stack.page, channels());
  };
  const channelsRow = async () => (await channels().evaluate((el) => el.closest('.form-row')?.textContent)) ?? '';
  const marked = () => channels().evaluate((el) => el.classList.contains('input-error'));

  it('an input without a default that the node leaves empty comes "from the message", not in red as missing', async () => {
    const { page } = stack;
    await openNode(page, FED);
    await chooseLoudness();
    // Fill inputs from the workflow: the defaults written as JSON, the input without one left out
    await page.locator('#node-media-spaces-inputs-template').click();
    await expect.poll(channelsRow).toContain('from the message');
    expect(await channelsRow()).not.toContain('is required');
    expect(await marked()).toBe(false);
    // still marked as having no default of its own
    expect(await channelsRow()).toContain('*');
    await closeNode(page);
    expect((await editorNode(page, FED))?.valid).toBe(true);
  });

  it('the same node not fed by a schedule still says the input is required', async () => {
    const { page } = stack;
    await openNode(page, ALONE);
    await chooseLoudness();
    // Fill inputs from the workflow: the defaults written as JSON, the input without one left out
    await page.locator('#node-media-spaces-inputs-template').click();
    await expect.poll(channelsRow).toContain('is required');
    expect(await marked()).toBe(true);
    await closeNode(page);
    expect((await editorNode(page, ALONE))?.valid).toBe(false);
  });
});
