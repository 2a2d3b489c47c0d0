import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clickInject,
  closeAllTrays,
  closeNode,
  debugMessages,
  deploy,
  deselectAll,
  editorNode,
  importNodes,
  openNode,
  pickWorkflowRow,
  showDebugSidebar,
  typedInputValue,
  waitForForm,
  waitForStatus,
} from './support/editor';
import { addSimulatorServer, type Stack, screenshot, startStack } from './support/stack';

/**
 * One user's way through the editor, step by step in one browser session:
 * add a server from the submit-job dialog, test the connection (right and
 * wrong key), pick a workflow from the searchable picker, deploy, press the inject
 * button and see the result; then the typecode checks of the inputs.
 */

const INJECT = 'e2e0inject000001';
const SUBMIT = 'e2e0submit000001';
const DEBUG = 'e2e0debug0000001';
const INJECT_LIST = 'e2e0inject000002';
const LIST = 'e2e0list00000001';
const DEBUG_LIST = 'e2e0debug0000002';
const QC_CHECK = 'aaaaaaaa-0000-4000-8000-000000000002';
const RENDER = 'aaaaaaaa-0000-4000-8000-000000000010';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('submit-job');
  await importNodes(stack.page, [
    {
      id: INJECT,
      type: 'inject',
      name: 'go',
      props: [{ p: 'payload' }],
      payload: '{}',
      payloadType: 'json',
      repeat: '',
      once: false,
      x: 140,
      y: 120,
      wires: [[SUBMIT]],
    },
    { id: SUBMIT, type: 'media-spaces-submit-job', name: '', x: 340, y: 120, wires: [[DEBUG]] },
    {
      id: DEBUG,
      type: 'debug',
      name: 'job',
      active: true,
      tosidebar: true,
      console: false,
      complete: 'payload',
      targetType: 'msg',
      x: 540,
      y: 120,
      wires: [],
    },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

// a failed step may leave a dialog open: close it so that the next steps start from the workspace
afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

/** Requests the simulator received on a route since a given count. */
function simRequests(route?: string) {
  return stack.sim.requests().filter((r) => route === undefined || r.route === route);
}

describe('submit-job in the editor against the simulator', () => {
  it('adds a server from the submit-job dialog and "Test connection" reports success', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await addSimulatorServer(stack);

    const before = simRequests().length;
    await page.click('#node-config-media-spaces-test');
    const result = page.locator('#node-config-media-spaces-test-result');
    await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/Live capture/);
    const text = (await result.textContent()) ?? '';
    expect(text).toMatch(/✔\s*Workflow list: OK/);
    expect(text).toMatch(/✔\s*Live capture: OK/);
    expect(text).not.toContain('✖');
    // the probe really went to the simulator, with credentials
    const probes = simRequests().slice(before);
    expect(probes.some((r) => r.route === 'list' && r.status === 200 && r.authorization_present)).toBe(true);
    await screenshot(page, 'config-dialog.png');
  });

  it('"Test connection" with a wrong API key reports the 401', async () => {
    const { page } = stack;
    const before = simRequests().length;
    await page.fill('#node-config-input-apiKey', 'not-a-key');
    await page.click('#node-config-media-spaces-test');
    const result = page.locator('#node-config-media-spaces-test-result');
    await expect.poll(() => result.textContent(), { timeout: 15_000 }).toMatch(/✖/);
    const text = (await result.textContent()) ?? '';
    expect(text).toMatch(/✖\s*Workflow list:[^✔✖–]*401/);
    expect(
      simRequests()
        .slice(before)
        .some((r) => r.status === 401),
    ).toBe(true);

    // back to the right key, and add the server
    await page.fill('#node-config-input-apiKey', stack.sim.info().spaces[0].api_keys.admin ?? '');
    await page.click('#node-config-dialog-ok');
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('#node-input-server option:checked').textContent()).toBe('Simulator');
  });

  it('fills the workflow picker from the simulator and picking one sets the workflow id', async () => {
    const { page } = stack;
    // a new node's Inputs start empty (Node-RED keeps a node's input-port count in a property named "inputs")
    expect.soft(await typedInputValue(page, '#node-input-jobInputs'), 'Inputs of a new node').toBe('');
    const list = page.locator('#node-media-spaces-workflow-list');
    const count = page.locator('#node-media-spaces-workflow-count');
    // every page of the space's workflows, active ones offered, the others behind the toggle with their status
    await expect.poll(() => count.textContent(), { timeout: 15_000 }).toMatch(/^\d+ workflows/);
    expect(Number(/^(\d+)/.exec((await count.textContent()) ?? '')?.[1])).toBeGreaterThan(100);
    const names = () => list.locator('.ms-wf-row .ms-wf-name').allTextContents();
    expect(await names()).toContain('QC check');
    expect(await names()).not.toContain('Nightly backup');
    await page.locator('#node-media-spaces-workflow-all').check();
    const rowOf = (name: string) =>
      list.locator('.ms-wf-row', { has: page.locator('.ms-wf-name', { hasText: new RegExp(`^${name}$`) }) });
    await page.fill('#node-media-spaces-workflow-search', 'nightly backup');
    expect(await rowOf('Nightly backup').locator('.ms-wf-status').textContent()).toBe('idle');
    await page.fill('#node-media-spaces-workflow-search', 'hdcam ingest');
    expect(await rowOf('HDCAM ingest').locator('.ms-wf-status').textContent()).toBe('archived');
    await page.locator('#node-media-spaces-workflow-all').uncheck();

    await page.fill('#node-media-spaces-workflow-search', 'QC check');
    await rowOf('QC check').click();
    expect(await typedInputValue(page, '#node-input-workflowId')).toBe(QC_CHECK);
    await closeNode(page);

    const saved = await editorNode(page, SUBMIT);
    expect(saved).toMatchObject({ workflowId: QC_CHECK, workflowIdType: 'str', workflowName: 'QC check' });
    // saving the dialog keeps the node's input port and its wire from the inject node
    expect(saved?.incomingLinks).toBe(1);
    // a workflow picked and no inputs needed: nothing to complain about (no red triangle)
    expect.soft(saved?.valid, `validation errors: ${JSON.stringify(saved?.validationErrors)}`).toBe(true);
  });

  it('deploys; the inject button submits a job: green status and the job in the Debug sidebar', async () => {
    const { page } = stack;
    // setup: a second branch listing the workflows, using the server made in the dialog above
    const server = (await editorNode(page, SUBMIT))?.server as string;
    expect(server).toBeTruthy();
    await importNodes(page, [
      {
        id: INJECT_LIST,
        type: 'inject',
        name: 'list',
        props: [{ p: 'payload' }],
        payload: '',
        payloadType: 'date',
        repeat: '',
        once: false,
        x: 140,
        y: 220,
        wires: [[LIST]],
      },
      {
        id: LIST,
        type: 'media-spaces-list-workflows',
        name: 'active workflows',
        server,
        statusFilter: 'active',
        maxResults: '',
        mode: 'all',
        x: 360,
        y: 220,
        wires: [[DEBUG_LIST]],
      },
      {
        id: DEBUG_LIST,
        type: 'debug',
        name: 'workflows',
        active: true,
        tosidebar: true,
        console: false,
        complete: 'payload',
        targetType: 'msg',
        x: 570,
        y: 220,
        wires: [],
      },
    ]);
    await deploy(page);
    await showDebugSidebar(page);
    const jobsBefore = simRequests('submit').length;

    await clickInject(page, INJECT);
    const status = await waitForStatus(page, SUBMIT, (s) => (s.fill === 'green' && s.text !== '') || s.fill === 'red');
    expect(status, JSON.stringify(status)).toMatchObject({ fill: 'green', shape: 'dot' });
    expect(status.text).toMatch(/job/i);

    const submitted = simRequests('submit').slice(jobsBefore);
    expect(submitted).toHaveLength(1);
    expect(submitted[0]).toMatchObject({ method: 'POST', authorization_present: true });
    expect(submitted[0].status).toBeGreaterThanOrEqual(200);
    expect(submitted[0].status).toBeLessThan(300);
    expect(submitted[0].path).toContain(QC_CHECK);
    expect(submitted[0].idempotency_key).toBeTruthy();

    // the debug node shows msg.payload: the created job, with its id
    await expect
      .poll(async () => (await debugMessages(page)).join('\n'), { timeout: 10_000 })
      .toMatch(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-/);

    // the list branch: every active workflow in one message
    const listsBefore = simRequests('list').length;
    await clickInject(page, INJECT_LIST);
    const listStatus = await waitForStatus(
      page,
      LIST,
      (s) => (s.fill === 'green' && s.text !== '') || s.fill === 'red',
    );
    expect(listStatus, JSON.stringify(listStatus)).toMatchObject({ fill: 'green', shape: 'dot' });
    const listed = simRequests('list').slice(listsBefore);
    expect(listed.length).toBeGreaterThan(0);
    expect(listed.every((r) => r.status === 200 && r.query.status === 'active')).toBe(true);
    await expect.poll(async () => (await debugMessages(page)).join('\n'), { timeout: 10_000 }).toMatch(/array\[\d+\]/);
    await deselectAll(page);
    await screenshot(page, 'flow-deployed.png');
  });

  it('the inputs form checks each value against its typecode and refuses a bad TimeCode', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await page.fill('#node-media-spaces-workflow-search', RENDER);
    await pickWorkflowRow(page.locator('#node-media-spaces-workflow-list'), RENDER);
    const form = page.locator('#node-media-spaces-inputs-form');
    await waitForForm(page, form);
    // one field per declared variable, the typecode in its label
    await expect.poll(() => form.locator('[data-variable]').count()).toBe(9);
    expect(await form.textContent()).toContain('StartTimecode (TimeCode)');
    // Booleans are a choice, not free text
    expect(await form.locator('select[data-variable="BurnIn"] option').allTextContents()).toEqual(
      expect.arrayContaining(['true', 'false']),
    );

    const timecode = form.locator('input[data-variable="StartTimecode"]');
    const problemOf = (field: typeof timecode) =>
      field.evaluate((el) => ({
        invalid: el.classList.contains('input-error'),
        text: (el.closest('.form-row')?.textContent ?? '').trim(),
      }));
    for (const bad of ['25:00:00:00@25', '10:00:00:25@25', '10:00:00:00@26', '10:00:00']) {
      await timecode.fill(bad);
      const p = await problemOf(timecode);
      expect(p.invalid, bad).toBe(true);
      expect(p.text.length, bad).toBeGreaterThan('StartTimecode (TimeCode)'.length);
    }
    await timecode.fill('10:00:00:24@25');
    expect((await problemOf(timecode)).invalid).toBe(false);

    const byte = form.locator('input[data-variable="Priority"]');
    await byte.fill('300');
    expect((await problemOf(byte)).invalid).toBe(true);
    await byte.fill('7');
    expect((await problemOf(byte)).invalid).toBe(false);
    const int32 = form.locator('input[data-variable="VideoBitrateKbps"]');
    await int32.fill('fast');
    expect((await problemOf(int32)).invalid).toBe(true);
    await int32.fill('8000');

    // the form writes the Inputs JSON (short form) as the user types
    await form.locator('input[data-variable="Title"]').fill('Review copy');
    await form.locator('input[data-variable="SourceUri"]').fill('s3://media/in/clip.mxf');
    await timecode.fill('25:00:00:00@25');
    const written = JSON.parse(await typedInputValue(page, '#node-input-jobInputs')) as {
      variables: Record<string, unknown>;
    };
    expect(written.variables).toMatchObject({
      Title: 'Review copy',
      StartTimecode: '25:00:00:00@25',
      VideoBitrateKbps: '8000',
      Priority: '7',
    });
    await screenshot(page, 'submit-job-dialog.png');
  });

  it('a node left with a bad TimeCode is flagged invalid when the dialog closes', async () => {
    const { page } = stack;
    await closeNode(page);
    const saved = await editorNode(page, SUBMIT);
    expect(saved).toMatchObject({ workflowId: RENDER, jobInputsType: 'json' });
    // Node-RED's way to refuse before deploy: the node is invalid (red triangle, deploy asks to confirm)
    expect(saved?.valid).toBe(false);
  });

  it('saving the inputs keeps the input port and the wire from the inject node', async () => {
    const saved = await editorNode(stack.page, SUBMIT);
    expect(saved?.inputs).toBe(1);
    expect(saved?.incomingLinks).toBe(1);
  });

  it('deployed anyway, the runtime refuses the bad TimeCode by variable name and sends nothing', async () => {
    const { page } = stack;
    await deploy(page);
    const jobsBefore = simRequests('submit').length;
    const debugBefore = (await debugMessages(page)).length;
    await clickInject(page, INJECT);
    const status = await waitForStatus(page, SUBMIT, (s) => s.fill === 'red');
    expect(status.shape).toBe('ring');
    // done(err): the error reaches the Debug sidebar as one line naming the variable first, and the runtime log too
    await expect
      .poll(async () => (await debugMessages(page)).slice(debugBefore).join('\n'), { timeout: 10_000 })
      .toMatch(/variables\.StartTimecode: .*must be a TimeCode/);
    await expect.poll(() => stack.nodeRed.log(), { timeout: 5_000 }).toMatch(/\[error\].*StartTimecode/);
    expect(simRequests('submit').slice(jobsBefore)).toHaveLength(0);
  });

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
