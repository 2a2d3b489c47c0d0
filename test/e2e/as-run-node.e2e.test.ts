import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeNode, editorNode, importNodes, openNode } from './support/editor';
import { type Stack, startStack } from './support/stack';

/**
 * The as-run node's dialog in a real editor: the schedule filter lists the
 * workspace's schedule nodes by name (set as text), the outcome check boxes
 * save as the node's settings, and the label says what is left.
 */
const STUDIO = 'e2e0asrunsched01';
const HOSTILE = 'e2e0asrunsched02';
const AS_RUN = 'e2e0asrunnode001';
const HOSTILE_NAME = '<img src=x onerror="window.__owned=1">';

describe('media-spaces-as-run dialog', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack('as-run-node');
    const schedule = (id: string, name: string, y: number) => ({
      id,
      type: 'media-spaces-schedule',
      name,
      source: 'yaml',
      yaml: 'windows:\n  - id: news\n    cron: "0 18 * * *"\n    duration: 1h\n',
      x: 160,
      y,
      wires: [[], [], []],
    });
    await importNodes(stack.page, [
      schedule(STUDIO, 'Studio A', 100),
      schedule(HOSTILE, HOSTILE_NAME, 200),
      { id: AS_RUN, type: 'media-spaces-as-run', name: '', x: 420, y: 300, wires: [[]] },
    ]);
  }, 120_000);

  afterAll(async () => {
    await stack?.close();
  });

  it('filters by a schedule chosen by name and by the outcomes ticked', async () => {
    const { page } = stack;
    expect(await page.locator('#red-ui-workspace text', { hasText: /^as-run$/ }).count()).toBe(1);
    await openNode(page, AS_RUN);
    const options = page.locator('#node-input-schedule option');
    // by name; a name is text, never markup
    expect(await options.allTextContents()).toEqual(['every schedule', HOSTILE_NAME, 'Studio A']);
    for (const o of ['recorded', 'overran', 'partial', 'missed', 'skipped', 'cancelled']) {
      expect(await page.locator(`#node-input-${o}`).isChecked(), o).toBe(true);
    }
    await page.locator('#node-input-schedule').selectOption(STUDIO);
    await page.locator('#node-input-recorded').uncheck();
    await page.locator('#node-input-skipped').uncheck();
    await closeNode(page);
    expect(await editorNode(page, AS_RUN)).toMatchObject({
      schedule: STUDIO,
      recorded: false,
      overran: true,
      partial: true,
      missed: true,
      skipped: false,
      cancelled: true,
    });
    expect(
      await page.locator('#red-ui-workspace text', { hasText: 'as-run: overran, partial, missed, cancelled' }).count(),
    ).toBe(1);
    expect(await page.evaluate(() => (window as unknown as { __owned?: number }).__owned)).toBeUndefined();
    expect(stack.pageErrors).toEqual([]);
  });
});
