import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canvasBoxes, overlaps } from './support/canvas';
import {
  clickInject,
  debugMessages,
  nodeSelector,
  nodeStatus,
  showDebugSidebar,
  waitForStatus,
} from './support/editor';
import { ROOT } from './support/paths';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * The recording-automation demo deployed as `npm start` deploys it, seen in
 * the editor: the Debug sidebar tells the story in one line per step, the
 * create-channel node's status reaches RECORDING while the window is open,
 * and no status text overlaps a node or another status, even at the longest
 * text each node can show. Then two examples imported into one editor share
 * one config node.
 */

const require = createRequire(import.meta.url);
const { pointFlowAtSimulator } = require(join(ROOT, 'scripts/demo-userdir.cjs')) as {
  pointFlowAtSimulator(flow: unknown[], info: unknown): { flow: Node[]; credentials: Record<string, unknown> };
};
type Node = Record<string, unknown> & { id: string; type: string };
const example = (file: string) => JSON.parse(readFileSync(join(ROOT, 'examples', file), 'utf8')) as Node[];

const SCHEDULE = 'rec0schedule0001';
const CHANNEL = 'rec0channel00001';
const FOLLOW = 'rec0watch0000001';
const SUBMIT = 'rec0submit000001';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('demo');
  const { flow, credentials } = pointFlowAtSimulator(example('recording-automation.json'), stack.sim.info());
  for (const n of flow) if (credentials[n.id]) n.credentials = credentials[n.id];
  const res = await fetch(`${stack.nodeRed.url}/flows`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'Node-RED-Deployment-Type': 'full' },
    body: JSON.stringify(flow),
  });
  expect(res.status).toBe(204);
  await stack.page.reload();
  await stack.page.locator(nodeSelector(SCHEDULE)).waitFor();
});

afterAll(async () => {
  await stack?.close();
});

describe('the demo in the editor', () => {
  it('shows the channel RECORDING while the window is open, and the story in the Debug sidebar', async () => {
    const { page } = stack;
    await showDebugSidebar(page);
    // a window opened at deploy (caught up) may have begun before this editor connected: follow the next one,
    // which opens within a minute
    await expect
      .poll(async () => (await debugMessages(page)).some((t) => t.includes('1 window opened')), { timeout: 75_000 })
      .toBe(true);
    await waitForStatus(page, SCHEDULE, (s) => s.text.startsWith('recording: Demo recording until'), 5_000);
    const recording = await waitForStatus(page, CHANNEL, (s) => s.text === 'channel RECORDING', 20_000);
    expect(recording).toEqual({ fill: 'green', shape: 'dot', text: 'channel RECORDING' });
    expect(overlaps(await canvasBoxes(page))).toEqual([]);

    await expect
      .poll(async () => (await debugMessages(page)).some((t) => t.includes('4 job succeeded')), { timeout: 90_000 })
      .toBe(true);
    await waitForStatus(page, FOLLOW, (s) => s.text.startsWith('succeeded: Proxy of Demo recording'), 5_000);
    const lines = (await debugMessages(page)).map((t) => t.replace(/\s+/g, ' ').trim());
    const story = lines.join('\n');
    for (const re of [
      /1 window opened: Demo recording, \d\d:\d\d:\d\d to \d\d:\d\d:\d\d UTC/,
      /2 channel created: Demo recording .+ \(PENDING\)/,
      /2 recording: Demo recording .+ is RECORDING/,
      // the follow-up waits until the recording was stopped and its files are final
      /3 window closed, recording stopped and finished: \d+ files/,
      /3 follow-up submitted: job Proxy of Demo recording .+ \(created\)/,
      /4 job progress: \d+% \(in-process\)/,
      /4 job succeeded: Proxy of Demo recording .+ in 0:00:\d\d/,
    ]) {
      expect(story).toMatch(re);
    }
    expect(story).not.toMatch(/\[object Object\]|topic: channel|remembered/);
    // every entry is the one line of text, not a whole message to expand
    expect(lines.every((l) => /msg\.payload : string/.test(l))).toBe(true);
    expect(story).not.toContain('...');
    expect(overlaps(await canvasBoxes(page))).toEqual([]);
    await screenshot(page, 'demo-debug.png');
  }, 200_000);

  it('pauses from its "pause the demo" button: the status says paused, no window opens, "resume the demo" starts it again', async () => {
    const { page } = stack;
    const opened = async () => (await debugMessages(page)).filter((t) => t.includes('1 window opened')).length;
    await clickInject(page, 'rec0pause0000001');
    await waitForStatus(page, SCHEDULE, (s) => s.text.startsWith('paused'), 10_000);
    const before = await opened();
    // the demo opens a window every minute: one start goes by while paused, and writes no line
    const nextMinute = Math.ceil((Date.now() + 1_000) / 60_000) * 60_000;
    await page.waitForTimeout(nextMinute + 8_000 - Date.now());
    expect(await opened()).toBe(before);
    expect((await nodeStatus(page, SCHEDULE)).text).toMatch(/^paused/);
    await clickInject(page, 'rec0resume000001');
    await waitForStatus(page, SCHEDULE, (s) => !s.text.startsWith('paused'), 10_000);
  }, 120_000);

  it('lays the nodes out so that no status overlaps at the longest text each node can show', async () => {
    const { page } = stack;
    const longest: Record<string, string> = {
      [SCHEDULE]: 'paused; recording: Demo recording until 23:59:59 (+1)',
      [CHANNEL]: 'channel FINISHING_RECORDING',
      [SUBMIT]: '422: invalid_options: workflow not active',
      [FOLLOW]: 'succeeded: Proxy of Demo recording 2026-12-31 23:59:00',
      rec0story0000001: '',
    };
    await page.evaluate((texts) => {
      const RED = (
        window as unknown as {
          RED: { nodes: { node(id: string): Record<string, unknown> }; view: { redraw(full: boolean): void } };
        }
      ).RED;
      for (const [id, text] of Object.entries(texts)) {
        const n = RED.nodes.node(id);
        if (!text) continue;
        n.status = { fill: 'green', shape: 'dot', text };
        n.dirtyStatus = true;
        n.dirty = true;
      }
      RED.view.redraw(true);
    }, longest);
    await page.waitForTimeout(300);
    const list = await canvasBoxes(page);
    expect(list.filter((b) => b.what.startsWith('status')).length).toBeGreaterThanOrEqual(4);
    expect(overlaps(list)).toEqual([]);
    await screenshot(page, 'demo-flow.png');
  });

  it('two examples imported as Import > Examples does keep one config node: one entry in the dropdown', async () => {
    const { page } = stack;
    for (const file of ['create-channel.json', 'list-workflows.json']) {
      const flow = example(file);
      // what the Import dialog does with an example (RED.clipboard's importNodes): ids kept, on a new flow.
      // The shared config node already exists (the demo has it): the package's editor code leaves it out of
      // the import instead of letting Node-RED 4 ask about a conflict
      const outcome = await page.evaluate((nodes) => {
        const RED = (window as unknown as { RED: { view: { importNodes(n: unknown, o: unknown): void } } }).RED;
        try {
          RED.view.importNodes(structuredClone(nodes), { generateIds: false, addFlow: true, touchImport: true });
          return 'imported';
        } catch (error) {
          if ((error as { code?: string }).code !== 'import_conflict') throw error;
          RED.view.importNodes(structuredClone(nodes), { generateIds: true, addFlow: true, touchImport: true });
          return 'imported as a copy';
        }
      }, flow);
      expect(outcome, file).toBe('imported');
    }
    const configs = await page.evaluate(() => {
      const RED = (
        window as unknown as {
          RED: { nodes: { eachConfig(cb: (n: { type: string; name: string; id: string }) => void): void } };
        }
      ).RED;
      const found: string[] = [];
      RED.nodes.eachConfig((n) => {
        if (n.type === 'media-spaces-config') found.push(`${n.id} ${n.name}`);
      });
      return found;
    });
    expect(configs).toEqual(['c0nf16000000d3m0 Simulator demo space']);
    // the dropdown a user opens in the imported list-workflows node (on the flow the last import opened)
    const opId = await page.evaluate(() => {
      const RED = (
        window as unknown as {
          RED: {
            nodes: { filterNodes(f: Record<string, unknown>): Array<{ id: string }> };
            workspaces: { active(): string };
          };
        }
      ).RED;
      return RED.nodes.filterNodes({ z: RED.workspaces.active(), type: 'media-spaces-list-workflows' })[0]?.id;
    });
    expect(opId).toBeTruthy();
    await page.locator(`${nodeSelector(opId)} rect.red-ui-flow-node`).dblclick();
    await page.locator('#node-input-server').waitFor({ state: 'attached' });
    const entries = await page.locator('#node-input-server option').allTextContents();
    expect(entries.filter((t) => t.includes('Simulator demo space'))).toEqual(['Simulator demo space']);
    await page.click('#node-dialog-cancel');
    expect(stack.pageErrors).toEqual([]);
  });
});
