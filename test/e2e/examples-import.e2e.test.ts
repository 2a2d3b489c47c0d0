import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { canvasBoxes, overlaps } from './support/canvas';
import { dismissNotifications } from './support/editor';
import { INSTALLED_PACKAGE } from './support/paths';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * Menu > Import > Examples, as a newcomer does it, for every one of the package's examples in a row,
 * with the demo's flow (the recording-automation example) already open: no conflict question, one
 * server config node, each example on a tab of its own named after it with no node drawn over
 * another, and the demo's flow shown rather than imported twice.
 */

type FlowNode = { id: string; type: string; [key: string]: unknown };

const example = (file: string) =>
  JSON.parse(readFileSync(join(INSTALLED_PACKAGE, 'examples', file), 'utf8')) as FlowNode[];

type EditorWindow = {
  RED: {
    nodes: {
      eachConfig(cb: (n: { type: string; id: string }) => void): void;
      eachWorkspace(cb: (n: { id: string; label: string }) => void): void;
      dirty(d: boolean): void;
    };
    workspaces: { active(): string };
  };
};

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('examples-import');
  // setup: the demo's flow as `npm start` opens it (the recording-automation example, ids kept)
  await stack.page.evaluate((nodes) => {
    const RED = (window as unknown as { RED: { view: { importNodes(n: unknown, o: unknown): void } } }).RED;
    RED.view.importNodes(nodes, { generateIds: false, addFlow: false, touchImport: true });
  }, example('recording-automation.json'));
  await dismissNotifications(stack.page);
});

afterAll(async () => {
  await stack?.close();
});

async function importExample(name: string): Promise<void> {
  const { page } = stack;
  await page.click('#red-ui-header-button-sidemenu');
  await page.click('#menu-item-import');
  await page
    .locator('#red-ui-clipboard-dialog-import-tabs a[href="#red-ui-clipboard-dialog-import-tab-examples"]')
    .click();
  const tree = page.locator('.red-ui-clipboard-dialog-tab-library:visible');
  const label = (text: string) => tree.locator('.red-ui-treeList-label').filter({ hasText: new RegExp(`^${text}$`) });
  if (!(await label(name).isVisible())) await label('@media-spaces/node-red').click();
  // the editor enables Import once it has fetched the example chosen; a click that lands while the tree
  // redraws (a loaded machine) chooses nothing, so the example is chosen again until Import is enabled
  const ok = page.locator('#red-ui-clipboard-dialog-ok');
  for (let tries = 1; ; tries++) {
    await label(name).click();
    const enabled = await ok
      .and(page.locator(':not([disabled])'))
      .waitFor({ timeout: 10_000 })
      .then(() => true)
      .catch(() => false);
    if (enabled) break;
    expect(tries, `Import enabled after choosing ${name}`).toBeLessThan(3);
  }
  await ok.click();
  await page.locator('#red-ui-clipboard-dialog').waitFor({ state: 'hidden' });
}

const serverConfigs = () =>
  stack.page.evaluate(() => {
    const found: string[] = [];
    (window as unknown as EditorWindow).RED.nodes.eachConfig((n) => {
      if (n.type === 'media-spaces-config') found.push(n.id);
    });
    return found;
  });

/** The examples beside the demo's own (recording-automation). */
const EXAMPLES = [
  'list-workflows',
  'create-channel',
  'submit-job',
  'delete-event',
  'wait-workflow',
  'watch-workflows',
  'record-from-calendar',
  'record-from-epg',
];

/** The label of the flow tab shown, as the tab bar shows it. */
const activeTabLabel = async () =>
  (await stack.page.locator('#red-ui-workspace-tabs li.active .red-ui-tab-label').first().textContent())?.trim();

const tabs = () =>
  stack.page.evaluate(() => {
    const found: string[] = [];
    (window as unknown as EditorWindow).RED.nodes.eachWorkspace((w) => {
      found.push(w.label);
    });
    return found;
  });

/** Node-RED's conflict notification ("Some of the nodes you are importing already exist") or its dialog. */
const conflictShown = () =>
  stack.page
    .locator('.red-ui-notification:visible, #red-ui-clipboard-dialog-import-conflicts-list:visible')
    .filter({ hasText: /already exist|Import copy|View nodes/i })
    .count();

describe('Import > Examples', () => {
  it('imports the examples one after another, after the demo: no question, one server config node, each on its own tab named after it, no node over another', async () => {
    for (const name of EXAMPLES) {
      await importExample(name);
      await stack.page.waitForTimeout(300);
      expect(await conflictShown(), name).toBe(0);
      expect(await serverConfigs(), name).toEqual(['c0nf16000000d3m0']);
      // the flow opens on the example's tab, not on "Flow 2"
      const tab = example(`${name}.json`).find((n) => n.type === 'tab');
      expect(tab, name).toBeDefined();
      expect(await activeTabLabel(), name).toBe(tab?.label);
      expect(await activeTabLabel(), name).not.toMatch(/^Flow \d+$/);
      expect(overlaps(await canvasBoxes(stack.page)), name).toEqual([]);
      // the example's nodes are there, with their own ids, using the one server
      const op = example(`${name}.json`).find(
        (n) => n.type.startsWith('media-spaces-') && n.type !== 'media-spaces-config',
      );
      const server = await stack.page.evaluate(
        (id) =>
          (window as unknown as { RED: { nodes: { node(id: string): { server?: string } | null } } }).RED.nodes.node(id)
            ?.server ?? null,
        op?.id ?? '',
      );
      expect(server, name).toBe('c0nf16000000d3m0');
    }
    await screenshot(stack.page, 'examples-imported.png');
  });

  it('the recording-automation example, which the demo already shows, opens the demo flow instead of a copy', async () => {
    const before = await tabs();
    await importExample('recording-automation');
    await stack.page.waitForTimeout(300);
    expect(await conflictShown()).toBe(0);
    expect(await tabs()).toEqual(before);
    expect(await stack.page.evaluate(() => (window as unknown as EditorWindow).RED.workspaces.active())).toBe(
      'f10w00000000rec1',
    );
    expect(overlaps(await canvasBoxes(stack.page))).toEqual([]);
    expect(await serverConfigs()).toEqual(['c0nf16000000d3m0']);
    expect(stack.pageErrors).toEqual([]);
  });
});
