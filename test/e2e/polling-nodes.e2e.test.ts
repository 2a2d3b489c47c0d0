import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, editorNode, importNodes, openNode } from './support/editor';
import { type Stack, startStack } from './support/stack';

/**
 * The three polling nodes' editors (follow job, wait for workflow, watch
 * workflows) as a user meets them: in the palette under their own names,
 * each dialog with its own fields and defaults, the status filter offering
 * the service's workflow statuses, and a bad interval marked invalid.
 */

const FOLLOW = 'e2e0follow000001';
const WAIT = 'e2e0wait00000001';
const WATCH = 'e2e0watch0000001';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('polling-nodes');
  await importNodes(stack.page, [
    { id: FOLLOW, type: 'media-spaces-follow-job', x: 200, y: 100, wires: [[], []] },
    { id: WAIT, type: 'media-spaces-wait-workflow', x: 200, y: 180, wires: [[]] },
    { id: WATCH, type: 'media-spaces-watch-workflows', x: 200, y: 260, wires: [[], []] },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

describe('polling nodes in the editor', () => {
  it('shows three palette entries with their own labels, none called "watch"', async () => {
    const labels = await stack.page.evaluate(() =>
      ['media-spaces-follow-job', 'media-spaces-wait-workflow', 'media-spaces-watch-workflows'].map(
        (type) =>
          document
            .querySelector(`.red-ui-palette-node[data-palette-type="${type}"] .red-ui-palette-label`)
            ?.textContent?.replace(/\s+/g, ' ')
            .trim() ?? null,
      ),
    );
    expect(labels).toEqual(['follow job', 'wait for workflow', 'watch workflows']);
    const old = await stack.page.locator('.red-ui-palette-node[data-palette-type="media-spaces-watch"]').count();
    expect(old).toBe(0);
  });

  it('follow job: interval, backoff, concurrency and timeout with their defaults; a bad interval is invalid', async () => {
    const { page } = stack;
    // what a node dragged from the palette starts with
    const defaults = await page.evaluate(() => {
      const RED = (
        window as unknown as {
          RED: { nodes: { getType(t: string): { defaults: Record<string, { value: unknown }> } } };
        }
      ).RED;
      const d = RED.nodes.getType('media-spaces-follow-job').defaults;
      return Object.fromEntries(Object.entries(d).map(([k, v]) => [k, v.value]));
    });
    // coordination: '' = this instance alone (no Redis coordination node chosen)
    expect(defaults).toEqual({
      name: '',
      server: '',
      interval: 5000,
      backoffMax: 60000,
      concurrency: 8,
      timeout: '',
      coordination: '',
    });
    await openNode(page, FOLLOW);
    for (const field of ['interval', 'backoffMax', 'concurrency', 'timeout', 'coordination']) {
      await expect(page.locator(`#node-input-${field}`).count()).resolves.toBe(1);
    }
    expect(await page.locator('#node-input-workflow').count()).toBe(0);
    await page.fill('#node-input-interval', '0');
    await closeNode(page, 'ok');
    const saved = await editorNode(page, FOLLOW);
    expect(saved?.interval).toBe('0');
    expect(saved?.valid).toBe(false);
    // Node-RED lists a validator's reason, which names the field as the dialog labels it
    expect(saved?.validationErrors).toContain('Interval must be a whole number of at least 1');
  });

  it('wait for workflow: the workflow names the node', async () => {
    const { page } = stack;
    await openNode(page, WAIT);
    expect(await page.locator('#node-input-timeout').count()).toBe(1);
    expect(await page.locator('#node-input-concurrency').count()).toBe(0);
    await page.fill('#node-input-workflow', 'QC check');
    await closeNode(page, 'ok');
    const saved = await editorNode(page, WAIT);
    expect(saved?.workflow).toBe('QC check');
    const label = await page.locator(`g.red-ui-flow-node-group[id="${WAIT}"] .red-ui-flow-node-label`).textContent();
    expect(label?.trim()).toBe('wait for QC check');
  });

  it("watch workflows: the status filter offers the service's workflow statuses", async () => {
    const { page } = stack;
    await openNode(page, WATCH);
    const options = await page
      .locator('#node-input-statusFilter option')
      .evaluateAll((os) => os.map((o) => (o as HTMLOptionElement).value));
    expect(options).toEqual(['', 'active', 'archived', 'deleted', 'idle']);
    await page.selectOption('#node-input-statusFilter', 'archived');
    await page.check('#node-input-emitInitial');
    await closeNode(page, 'ok');
    const saved = await editorNode(page, WATCH);
    expect(saved).toMatchObject({ statusFilter: 'archived', emitInitial: true });
    const label = await page.locator(`g.red-ui-flow-node-group[id="${WATCH}"] .red-ui-flow-node-label`).textContent();
    expect(label?.trim()).toBe('watch archived workflows');
    // reopened, the dialog shows what was saved
    await openNode(page, WATCH);
    expect(await page.inputValue('#node-input-statusFilter')).toBe('archived');
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });
});
