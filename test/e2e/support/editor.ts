import type { Locator, Page } from 'playwright-core';
import { showSidebarTab } from './sidebar-tabs';

/**
 * Driving Node-RED's editor by its own element ids and classes
 * (@node-red/editor-client): flow nodes are `<g id="{node id}">` in the
 * workspace SVG, edit trays have #node-dialog-ok / #node-config-dialog-ok,
 * the deploy button is #red-ui-header-button-deploy.
 */

export interface FlowNode {
  id: string;
  type: string;
  [key: string]: unknown;
}

type EditorWindow = {
  RED: {
    view: { importNodes(nodes: unknown[], opts: Record<string, unknown>): void };
    nodes: {
      node(id: string): Record<string, unknown> | null;
      filterLinks(filter: Record<string, unknown>): unknown[];
      dirty(): boolean;
    };
    workspaces: { active(): string };
    events: { on(event: string, handler: (msg: { state?: string } | undefined) => void): void };
  };
  $: (selector: string) => { typedInput(method: string, value?: string): string };
  /** how many times the runtime said its flows started (runtime-state), counted from deploy()'s first call */
  msFlowStarts?: number;
};

/**
 * Setup only: puts nodes on the active flow with their ids kept (the brief
 * allows importing for setup; everything tested goes through the UI).
 */
export async function importNodes(page: Page, nodes: FlowNode[]): Promise<void> {
  await page.evaluate((list) => {
    const w = window as unknown as EditorWindow;
    // touchImport: place the nodes where they say, instead of attaching them to the mouse until a click
    w.RED.view.importNodes(list, { generateIds: false, addFlow: false, touchImport: true });
  }, nodes);
  for (const n of nodes) {
    if (n.type === 'media-spaces-config') continue;
    await page.locator(nodeSelector(n.id)).waitFor();
  }
  await dismissNotifications(page);
}

/**
 * The editor's toast notifications ("Imported 3 nodes", "Successfully
 * deployed") sit over the workspace and take clicks; a user waits or clicks
 * them away. Let clicks through them (removing them breaks the editor).
 */
export async function dismissNotifications(page: Page): Promise<void> {
  await page.addStyleTag({
    content:
      '#red-ui-notifications, .red-ui-notification { pointer-events: none !important; }' +
      ' .red-ui-notification button { pointer-events: auto !important; }',
  });
}

export function nodeSelector(id: string): string {
  return `g.red-ui-flow-node-group[id="${id}"]`;
}

/**
 * Opens a node's edit tray by double-clicking it in the workspace. On a busy machine the editor
 * now and then takes a double-click right after a tray closed as two clicks (CI saw no tray in
 * 30 s); then it double-clicks again, as a user would.
 */
export async function openNode(page: Page, id: string): Promise<void> {
  const dialog = page.locator('#node-dialog-ok');
  for (let attempt = 1; ; attempt++) {
    await page.locator(`${nodeSelector(id)} rect.red-ui-flow-node`).dblclick();
    try {
      await dialog.waitFor({ state: 'visible', timeout: attempt < 3 ? 5_000 : 30_000 });
      break;
    } catch (error) {
      if (await dialog.isVisible()) break;
      if (attempt >= 3) throw error;
    }
  }
  await trayStill(page);
}

/**
 * The tray slides in (250 ms), then takes its width (150 ms later) and settles (200 ms after that);
 * on a loaded machine each step comes late. Clicks land once its box has not moved for 150 ms.
 */
async function trayStill(page: Page): Promise<void> {
  const tray = page.locator('.red-ui-tray').last();
  const box = async () => JSON.stringify(await tray.boundingBox());
  await page.waitForTimeout(400);
  let last = await box();
  for (let i = 0; i < 40; i++) {
    await page.waitForTimeout(150);
    const now = await box();
    if (now === last) return;
    last = now;
  }
}

/**
 * Picks a workflow in a picker's list by its row and waits until the row shows it chosen; a click
 * that did not take is clicked again, as a user would (CI once saw the submit-job form never come
 * after one click, on a loaded machine).
 */
export async function pickWorkflowRow(list: Locator, id: string): Promise<void> {
  const chosen = list.locator(`.ms-wf-row.selected[data-id="${id}"]`);
  for (let attempt = 1; ; attempt++) {
    await list.locator(`.ms-wf-row[data-id="${id}"]`).click();
    try {
      await chosen.waitFor({ timeout: 5_000 });
      return;
    } catch (error) {
      if (attempt >= 3) throw error;
      console.warn(`[e2e] the click on workflow ${id}'s row did not take (attempt ${attempt}); clicking again`);
    }
  }
}

export async function closeNode(page: Page, button: 'ok' | 'cancel' = 'ok'): Promise<void> {
  await page.click(`#node-dialog-${button}`);
  await page.locator('#node-dialog-ok').waitFor({ state: 'detached' });
}

/** Cancels whatever edit trays are open (config dialogs first). */
export async function closeAllTrays(page: Page): Promise<void> {
  for (let i = 0; i < 4; i++) {
    const config = page.locator('#node-config-dialog-cancel');
    const node = page.locator('#node-dialog-cancel');
    if (await config.isVisible()) await config.click();
    else if (await node.isVisible()) await node.click();
    else return;
    await page.waitForTimeout(400);
  }
}

/** A property of a node as the editor holds it (to check what the dialog saved). */
export async function editorNode(page: Page, id: string): Promise<Record<string, unknown> | null> {
  return page.evaluate((nodeId) => {
    const w = window as unknown as EditorWindow;
    const n = w.RED.nodes.node(nodeId);
    if (!n) return null;
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(n)) {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) out[k] = v;
    }
    if (Array.isArray(n.validationErrors)) out.validationErrors = n.validationErrors;
    out.incomingLinks = w.RED.nodes.filterLinks({ target: n }).length;
    out.outgoingLinks = w.RED.nodes.filterLinks({ source: n }).length;
    return out;
  }, id);
}

/** A typedInput's value (the visible widget replaces the original input). */
export async function typedInputValue(page: Page, selector: string): Promise<string> {
  return page.evaluate((sel) => (window as unknown as EditorWindow).$(sel).typedInput('value'), selector);
}

/** Clicks Deploy and waits until the runtime has the flows. */
export async function deploy(page: Page): Promise<void> {
  // the deploy's answer comes when the runtime took the flows, before it started them (3 s later on a
  // loaded machine): an inject pressed in between is lost. The runtime tells the editor when they started
  const startsBefore = await page.evaluate(() => {
    const w = window as unknown as EditorWindow;
    if (w.msFlowStarts === undefined) {
      w.msFlowStarts = 0;
      w.RED.events.on('runtime-state', (msg) => {
        if (msg?.state === 'start') w.msFlowStarts = (w.msFlowStarts ?? 0) + 1;
      });
    }
    return w.msFlowStarts;
  });
  const button = page.locator('#red-ui-header-button-deploy');
  await button.click();
  // invalid or unconfigured nodes: the editor asks before deploying; a user confirms. The flows
  // stay dirty until a deploy went through, so whichever comes first tells which way it went
  const confirm = page.locator('#red-ui-deploy-dialog-confirm-deploy-deploy');
  await page.waitForFunction(
    () => {
      const asking = document.getElementById('red-ui-deploy-dialog-confirm-deploy-deploy');
      return (
        (asking !== null && asking.getClientRects().length > 0) ||
        !(window as unknown as EditorWindow).RED.nodes.dirty()
      );
    },
    undefined,
    { timeout: 20_000 },
  );
  if (await confirm.isVisible()) await confirm.click();
  await page.waitForFunction(() => !(window as unknown as EditorWindow).RED.nodes.dirty(), undefined, {
    timeout: 20_000,
  });
  await page.locator('#red-ui-header-button-deploy.disabled').waitFor();
  await page.waitForFunction(
    (before) => ((window as unknown as EditorWindow).msFlowStarts ?? 0) > before,
    startsBefore,
    {
      timeout: 20_000,
    },
  );
  await dismissNotifications(page);
}

/** Clicks an empty spot of the workspace, as a user does to clear the selection. */
export async function deselectAll(page: Page): Promise<void> {
  await page.locator('#red-ui-workspace-chart').click({ position: { x: 700, y: 600 } });
}

/** Clicks an inject node's button in the workspace. */
export async function clickInject(page: Page, id: string): Promise<void> {
  await page.locator(`${nodeSelector(id)} .red-ui-flow-node-button`).click();
}

export interface NodeStatus {
  fill: string | null;
  shape: string | null;
  text: string;
}

/** The status shown under a node: the classes of its dot/ring and its label. */
export async function nodeStatus(page: Page, id: string): Promise<NodeStatus> {
  return page.evaluate((sel) => {
    const g = document.querySelector(sel);
    const icon = g?.querySelector('.red-ui-flow-node-status');
    const label = g?.querySelector('.red-ui-flow-node-status-label');
    const group = g?.querySelector('.red-ui-flow-node-status-group') as SVGGElement | null;
    const visible = group ? group.style.display !== 'none' : false;
    const cls = icon?.getAttribute('class') ?? '';
    const m = /red-ui-flow-node-status-(dot|ring)-(\w+)/.exec(cls);
    return {
      shape: visible && m ? m[1] : null,
      fill: visible && m ? m[2] : null,
      text: visible ? (label?.textContent ?? '') : '',
    };
  }, nodeSelector(id));
}

export async function waitForStatus(
  page: Page,
  id: string,
  predicate: (s: NodeStatus) => boolean,
  timeoutMs = 20_000,
): Promise<NodeStatus> {
  const deadline = Date.now() + timeoutMs;
  let last = await nodeStatus(page, id);
  while (!predicate(last)) {
    if (Date.now() > deadline) throw new Error(`status of ${id} never matched; last ${JSON.stringify(last)}`);
    await page.waitForTimeout(200);
    last = await nodeStatus(page, id);
  }
  return last;
}

/** Shows the Debug sidebar tab by its button (Node-RED 5 may show it already, in the lower pane). */
export async function showDebugSidebar(page: Page): Promise<void> {
  await showSidebarTab(page, 'debug', '.red-ui-debug-content');
}

/** Texts of the messages in the Debug sidebar, oldest first. */
export async function debugMessages(page: Page): Promise<string[]> {
  return page.locator('.red-ui-debug-content .red-ui-debug-msg').allTextContents();
}

/** The ids of the nodes of a type on the editor's flows. */
async function nodeIdsOfType(page: Page, type: string): Promise<string[]> {
  return page.evaluate(
    (t) =>
      (
        window as unknown as { RED: { nodes: { filterNodes(f: Record<string, unknown>): Array<{ id: string }> } } }
      ).RED.nodes
        .filterNodes({ type: t })
        .map((n) => n.id),
    type,
  );
}

/**
 * Drags a node type from the palette onto the workspace, as a user does, and returns the new
 * node's id. `x`, `y`: where it is dropped, from the workspace's top left corner.
 */
export async function dropFromPalette(page: Page, type: string, x: number, y: number): Promise<string> {
  const before = new Set(await nodeIdsOfType(page, type));
  const entry = page.locator(`.red-ui-palette-node[data-palette-type="${type}"]`);
  await entry.scrollIntoViewIfNeeded();
  const from = await entry.boundingBox();
  const chart = await page.locator('#red-ui-workspace-chart').boundingBox();
  if (!from || !chart) throw new Error(`no palette entry for ${type}, or no workspace`);
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(chart.x + x, chart.y + y, { steps: 12 });
  await page.mouse.up();
  let added: string[] = [];
  for (let i = 0; i < 50 && added.length === 0; i++) {
    added = (await nodeIdsOfType(page, type)).filter((id) => !before.has(id));
    if (added.length === 0) await page.waitForTimeout(100);
  }
  if (added.length !== 1) throw new Error(`dropping ${type} added ${added.length} nodes`);
  await page.locator(nodeSelector(added[0])).waitFor();
  return added[0];
}

/** Drags a wire from a node's output port to another node's input, as a user does. */
export async function wire(page: Page, from: string, port: number, to: string): Promise<void> {
  const out = page
    .locator(`${nodeSelector(from)} .red-ui-flow-port-output`)
    .nth(port)
    .locator('.red-ui-flow-port');
  const into = page.locator(`${nodeSelector(to)} .red-ui-flow-port-input .red-ui-flow-port`);
  const a = await out.boundingBox();
  const b = await into.boundingBox();
  if (!a || !b) throw new Error(`no port to wire ${from}:${port} to ${to}`);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width / 2, b.y + b.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** What the submit-job dialog shows about its workflow and form, for an error that says why. */
async function submitDialogShows(page: Page) {
  return page.evaluate(() => ({
    workflow: (document.getElementById('node-input-workflowId') as HTMLInputElement | null)?.value,
    chosenRow: document.querySelector('#node-media-spaces-workflow-list .ms-wf-row.selected')?.getAttribute('data-id'),
    hint: document.getElementById('node-media-spaces-submit-hint')?.textContent ?? '',
    list: document.getElementById('node-media-spaces-workflow-count')?.textContent,
    form: document.getElementById('node-media-spaces-inputs-form')?.textContent?.slice(0, 200),
  }));
}

/**
 * Waits for a field of the submit-job dialog's inputs form (the workflow's declared inputs come from
 * the server, slower on a loaded machine). Where the dialog said the read failed, the chosen row is
 * clicked once more, as a user would (a failed read is asked again), and the log says so; if the form
 * still does not come, the error says what the dialog showed.
 */
export async function waitForForm(page: Page, field: Locator): Promise<void> {
  try {
    await field.waitFor({ timeout: 30_000 });
    return;
  } catch (error) {
    const shown = await submitDialogShows(page);
    if (!shown.hint || !shown.chosenRow) {
      throw new Error(`the inputs form did not show (${JSON.stringify(shown)}): ${(error as Error).message}`);
    }
    console.warn(`[e2e] the inputs form did not show; the dialog said "${shown.hint}"; clicking the row again`);
    await page.locator(`#node-media-spaces-workflow-list .ms-wf-row[data-id="${shown.chosenRow}"]`).click();
  }
  try {
    await field.waitFor({ timeout: 30_000 });
  } catch (error) {
    const shown = await submitDialogShows(page);
    throw new Error(`the inputs form did not show (${JSON.stringify(shown)}): ${(error as Error).message}`);
  }
}
