import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, deploy, editorNode, importNodes, openNode, waitForStatus } from './support/editor';
import { addSimulatorServer, type Stack, simulatorServer, startStack } from './support/stack';

/**
 * A node dragged from the palette while exactly one server exists takes it,
 * valid at once and shown chosen in its dialog (Node-RED's own select would
 * say "none"); with two servers nothing is guessed. Nodes dropped while
 * there was no server take the one the user then makes in a node's dialog. A schedule deployed
 * without a server says on the canvas that it will not stop its recordings.
 */

const TYPES = [
  'media-spaces-schedule',
  'media-spaces-submit-job',
  'media-spaces-create-channel',
  'media-spaces-follow-job',
  'media-spaces-list-workflows',
  'media-spaces-delete-event',
  'media-spaces-wait-workflow',
  'media-spaces-watch-workflows',
];
const SERVER = 'e2e0onlyserver01';
const SECOND = 'e2e0secondsrv001';

type EditorWindow = {
  RED: {
    nodes: {
      filterNodes(filter: { type: string }): { id: string }[];
      remove(id: string): unknown;
      node(id: string): unknown;
    };
    view: { redraw(full?: boolean): void };
  };
};

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('config-choice');
  await importNodes(stack.page, [simulatorServer(stack, SERVER)]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

/** Drags a node type from the palette onto the workspace, as a user does; its new id. */
async function dragFromPalette(type: string, x: number, y: number): Promise<string> {
  const { page } = stack;
  const before = await nodeIds(type);
  const entry = page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`);
  await entry.scrollIntoViewIfNeeded();
  const from = await entry.boundingBox();
  const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
  if (!from || !chart) throw new Error('palette or workspace not on screen');
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(chart.x + x, chart.y + y, { steps: 12 });
  await page.mouse.up();
  await page.waitForFunction(
    ({ t, n }) => (window as unknown as EditorWindow).RED.nodes.filterNodes({ type: t }).length > n,
    { t: type, n: before.length },
  );
  const after = await nodeIds(type);
  const added = after.find((id) => !before.includes(id));
  if (!added) throw new Error(`no ${type} was added`);
  return added;
}

function nodeIds(type: string): Promise<string[]> {
  return stack.page.evaluate(
    (t) => (window as unknown as EditorWindow).RED.nodes.filterNodes({ type: t }).map((n) => n.id),
    type,
  );
}

describe('a new node and the servers there are', () => {
  it('takes the only server: valid at once, and its dialog shows it chosen', async () => {
    const { page } = stack;
    const added: string[] = [];
    for (const [i, type] of TYPES.entries()) {
      added.push(await dragFromPalette(type, 180 + (i % 2) * 260, 80 + Math.floor(i / 2) * 90));
    }
    for (const [i, id] of added.entries()) {
      const node = await editorNode(page, id);
      expect(node?.server, TYPES[i]).toBe(SERVER);
      // the schedule needs more than a server (its windows), the rest of them nothing but a server
      if (TYPES[i] !== 'media-spaces-schedule') expect(node?.valid, TYPES[i]).toBe(true);
    }
    // the dialog opens with the server selected, not "none"
    for (const id of [added[1], added[2]]) {
      await openNode(page, id);
      const select = await page.evaluate(() => {
        const s = document.querySelector('#node-input-server') as HTMLSelectElement;
        return { value: s.value, text: s.selectedOptions[0]?.textContent };
      });
      expect(select).toEqual({ value: SERVER, text: 'Simulator' });
      await closeNode(page, 'cancel');
    }
    await page.evaluate((ids) => {
      const w = window as unknown as EditorWindow;
      for (const id of ids) w.RED.nodes.remove(id);
      w.RED.view.redraw(true);
    }, added);
  });

  it('guesses nothing when there are two servers', async () => {
    const { page } = stack;
    await importNodes(page, [{ ...simulatorServer(stack, SECOND), name: 'Second space' }]);
    const id = await dragFromPalette('media-spaces-create-channel', 300, 120);
    expect((await editorNode(page, id))?.server).toBe('');
    await page.evaluate((nodeId) => {
      const w = window as unknown as EditorWindow;
      w.RED.nodes.remove(nodeId);
      w.RED.nodes.remove('e2e0secondsrv001');
      w.RED.view.redraw(true);
    }, id);
  });

  it('a schedule deployed without a server says that it will not stop its recordings', async () => {
    const { page } = stack;
    const z = await page.evaluate(() =>
      (window as unknown as { RED: { workspaces: { active(): string } } }).RED.workspaces.active(),
    );
    await importNodes(page, [
      {
        id: 'e2e0noserversch1',
        type: 'media-spaces-schedule',
        z,
        x: 200,
        y: 420,
        name: 'Studio A',
        source: 'yaml',
        yaml: 'windows:\n  - id: news\n    cron: "0 18 * * *"\n    timezone: UTC\n    duration: 1h\n',
        server: '',
        wires: [[], [], []],
      },
    ]);
    // imported blank while one server exists, it took that server too: the user sets it to none
    expect((await editorNode(page, 'e2e0noserversch1'))?.server).toBe(SERVER);
    await openNode(page, 'e2e0noserversch1');
    await page.selectOption('#node-input-server', '_ADD_');
    await closeNode(page);
    expect((await editorNode(page, 'e2e0noserversch1'))?.server).toBe('');
    await deploy(page);
    // past the badge of a node whose flow is still starting
    const status = await waitForStatus(page, 'e2e0noserversch1', (s) => /^no server: .*next: /.test(s.text));
    expect(status).toMatchObject({ fill: 'yellow', shape: 'ring' });
    expect(status.text).toMatch(/^no server: recordings will not be stopped; next: .+ UTC$/);
  });

  it("nodes dropped before any server take the one added later in another node's dialog", async () => {
    const { page } = stack;
    // no server at all now
    await page.evaluate((id) => {
      const w = window as unknown as EditorWindow;
      w.RED.nodes.remove(id);
      w.RED.view.redraw(true);
    }, SERVER);
    const waiting = [
      await dragFromPalette('media-spaces-create-channel', 180, 560),
      await dragFromPalette('media-spaces-submit-job', 440, 560),
    ];
    for (const id of waiting) {
      expect(await editorNode(page, id)).toMatchObject({ server: '', valid: false });
    }
    // the user makes the server from a third node's dialog, as the trial flow does
    const third = await dragFromPalette('media-spaces-follow-job', 700, 560);
    await openNode(page, third);
    await addSimulatorServer(stack);
    await page.click('#node-config-dialog-ok');
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await closeNode(page);
    const server = (await editorNode(page, third))?.server;
    expect(typeof server === 'string' && server !== '').toBe(true);
    for (const id of waiting) {
      expect(await editorNode(page, id)).toMatchObject({ server, valid: true, changed: true });
    }
    await openNode(page, waiting[0]);
    expect(await page.locator('#node-input-server').inputValue()).toBe(server);
    await closeNode(page, 'cancel');

    expect(stack.pageErrors).toEqual([]);
  });
});
