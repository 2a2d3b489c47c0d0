import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, importNodes, openNode } from './support/editor';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * The schedule's window list as an operator uses it: where it opens, what "add" shows, typing a
 * new window's id, the time-zone check, and when the "drop the comments?" question is asked.
 */

const SCHEDULE = 'e2e0schedlist001';
const YAML = [
  '# studio B',
  'windows:',
  '  - id: morning-show # weekdays',
  '    cron: "0 7 * * mon-fri"',
  '    duration: 2h',
  '    channel:',
  '      tags: [morning]',
  '  - id: evening-news',
  '    cron: "0 18 * * mon-fri"',
  '    duration: 1h30m',
  '',
].join('\n');

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('schedule-list');
  await importNodes(stack.page, [
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Studio B',
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

const list = () => stack.page.locator('#node-input-windows-container');
const scroller = () => stack.page.locator('.red-ui-editableList-container').filter({ has: list() });
const cards = () => list().locator('li');
const question = () => stack.page.locator('.ms-schedule-comments-question');
const yaml = () =>
  stack.page.evaluate(
    (id) =>
      (window as unknown as { RED: { nodes: { node(id: string): { yamlEditor?: { getValue(): string } } } } }).RED.nodes
        .node(id)
        .yamlEditor?.getValue() ?? '',
    SCHEDULE,
  );
const savedYaml = () =>
  stack.page.evaluate(
    (id) => (window as unknown as { RED: { nodes: { node(id: string): { yaml: string } } } }).RED.nodes.node(id).yaml,
    SCHEDULE,
  );

async function toList(): Promise<void> {
  await stack.page.locator('#node-input-source').selectOption('editor');
  await stack.page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
  await cards().first().locator('.ms-w-id').waitFor({ state: 'visible', timeout: 10_000 });
}

/** Gives the question time to appear, as a user would see it. */
async function noQuestion(): Promise<number> {
  await stack.page.waitForTimeout(800);
  return question().count();
}

describe('schedule window list', () => {
  it('opens at the top of the first window; back to the YAML without edits asks nothing', async () => {
    const { page } = stack;
    await openNode(page, SCHEDULE);
    await toList();
    await page.waitForTimeout(300);
    expect(await scroller().evaluate((el) => el.scrollTop)).toBe(0);
    await page.locator('#node-input-source').selectOption('yaml');
    expect(await noQuestion()).toBe(0);
    expect(await yaml()).toBe(YAML);
  });

  it('Done on the list without edits asks nothing and keeps the commented YAML', async () => {
    const { page } = stack;
    await toList();
    await closeNode(page);
    expect(await noQuestion()).toBe(0);
    expect(await savedYaml()).toBe(YAML);
  });

  it('"add" shows the new window from its top with the id ready to type over', async () => {
    const { page } = stack;
    await openNode(page, SCHEDULE);
    await cards().first().locator('.ms-w-id').waitFor({ state: 'visible', timeout: 10_000 });
    await page.locator('.red-ui-editableList-addButton').filter({ visible: true }).click();
    await expect.poll(() => cards().count()).toBe(3);
    const card = cards().last();
    await page.waitForTimeout(500);
    // the card's top (its id) in view, not its bottom: the dialog (the one scroll area) scrolled to it
    const box = await page.locator('.red-ui-tray-content').filter({ has: list() }).boundingBox();
    const id = await card.locator('.ms-w-id').boundingBox();
    expect(box && id && id.y >= box.y && id.y + id.height <= box.y + box.height).toBe(true);
    await page.keyboard.type('late-show');
    expect(await card.locator('.ms-w-id').inputValue()).toBe('late-show');
    await screenshot(page, 'schedule-list-add.png', 'tray');
  });

  it('the time zone is checked when the field is left, not while it is typed', async () => {
    const { page } = stack;
    const card = cards().last();
    const zone = card.locator('.ms-w-timezone');
    await zone.click();
    await page.keyboard.type('Europe/Lond');
    expect(await card.locator('.ms-w-timezone-error').isVisible()).toBe(false);
    await page.keyboard.press('Tab');
    await expect.poll(() => card.locator('.ms-w-timezone-error').isVisible()).toBe(true);
    await zone.fill('Europe/London');
    await page.keyboard.press('Tab');
    await expect.poll(() => card.locator('.ms-w-timezone-error').isVisible()).toBe(false);
  });

  it('with edits, back to the commented YAML asks; "Keep the YAML" shows the YAML as it was', async () => {
    const { page } = stack;
    await page.locator('#node-input-source').selectOption('yaml');
    await question().waitFor({ state: 'visible', timeout: 10_000 });
    await page.click('#ms-schedule-comments-keep');
    expect(await page.locator('#node-input-source').inputValue()).toBe('yaml');
    await expect.poll(() => page.locator('.ms-schedule-yaml').isVisible()).toBe(true);
    expect(await yaml()).toBe(YAML);
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });
});
