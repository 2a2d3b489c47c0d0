import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  clickInject,
  closeAllTrays,
  closeNode,
  debugMessages,
  deploy,
  editorNode,
  importNodes,
  openNode,
  pickWorkflowRow,
  showDebugSidebar,
  waitForForm,
  waitForStatus,
} from './support/editor';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * Test connection, the default inject, readable errors, the config dialog's wording and Sign in, through the editor as a user clicks:
 * the config dialog's title and validation wording, "Test connection" with wrong settings,
 * Sign in in the service's popup, a default inject wired to submit job, and a failure as
 * the Debug sidebar shows it.
 */

const INJECT = 'e2e0opxinject001';
const SUBMIT = 'e2e0opxsubmit001';
const LIST_INJECT = 'e2e0opxinject002';
const LIST = 'e2e0opxlist00001';
const DEBUG = 'e2e0opxdebug0001';
const BAD_INJECT = 'e2e0opxinject003';
const BAD_SUBMIT = 'e2e0opxsubmit002';
const BAD_SERVER = 'e2e0opxbadserver';
const TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000001';
const RENDER = 'aaaaaaaa-0000-4000-8000-000000000010';

/** Node-RED's palette inject as dropped on the canvas: payload timestamp, topic empty. */
const defaultInject = (id: string, y: number, target: string) => ({
  id,
  type: 'inject',
  name: '',
  props: [{ p: 'payload' }, { p: 'topic', vt: 'str' }],
  repeat: '',
  crontab: '',
  once: false,
  onceDelay: 0.1,
  topic: '',
  payload: '',
  payloadType: 'date',
  x: 130,
  y,
  wires: [[target]],
});

const debugNode = { id: DEBUG, type: 'debug', name: 'out', active: true, tosidebar: true, console: false };

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('operator');
  const space = stack.sim.info().spaces[0];
  await importNodes(stack.page, [
    defaultInject(INJECT, 100, SUBMIT),
    { id: SUBMIT, type: 'media-spaces-submit-job', name: '', workflowId: TRANSCODE, x: 360, y: 100, wires: [[DEBUG]] },
    defaultInject(LIST_INJECT, 180, LIST),
    { id: LIST, type: 'media-spaces-list-workflows', name: '', mode: 'page', x: 360, y: 180, wires: [[DEBUG]] },
    { ...debugNode, complete: 'payload', targetType: 'msg', x: 600, y: 140, wires: [] },
  ]);
  // imported after the nodes above: a node added while exactly one server exists takes it, and these start
  // without one (the first test adds it through the dialog)
  await importNodes(stack.page, [
    // a server with a wrong key, to see a failure in the Debug sidebar
    {
      id: BAD_SERVER,
      type: 'media-spaces-config',
      name: 'wrong key',
      workflowUrl: stack.sim.workflowUrl,
      spaceId: space.space_id,
      workflowPrefix: '/workflow/v1',
      timeout: 5000,
      retries: 0,
      rejectUnauthorized: true,
      credentials: { apiKey: 'not-a-key' },
    },
    defaultInject(BAD_INJECT, 280, BAD_SUBMIT),
    {
      id: BAD_SUBMIT,
      type: 'media-spaces-submit-job',
      name: '',
      server: BAD_SERVER,
      workflowId: TRANSCODE,
      x: 360,
      y: 280,
      wires: [[]],
    },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

async function runTest(): Promise<string> {
  const { page } = stack;
  const result = page.locator('#node-config-media-spaces-test-result');
  await page.evaluate(() => {
    const box = document.getElementById('node-config-media-spaces-test-result');
    if (box) box.textContent = '';
  });
  await page.click('#node-config-media-spaces-test');
  await expect.poll(() => result.textContent(), { timeout: 20_000 }).toMatch(/Live capture:/);
  return (await result.textContent()) ?? '';
}

describe('operator experience in the editor', () => {
  it('the config dialog is titled by a label and "Test connection" tells each wrong setting apart', async () => {
    const { page, sim } = stack;
    const space = sim.info().spaces[0];
    await openNode(page, SUBMIT);
    await page.click('#node-input-btn-server-add');
    await page.locator('#node-config-input-workflowUrl').waitFor({ state: 'visible' });
    await page.waitForTimeout(400);
    const title = await page.locator('.red-ui-tray-titlebar').last().textContent();
    expect(title).toContain('Add new Media Spaces server config node');
    expect(title).not.toContain('media-spaces-config');

    await page.fill('#node-config-input-name', 'Simulator');
    await page.fill('#node-config-input-workflowUrl', sim.workflowUrl);
    await page.fill('#node-config-input-spaceId', space.space_id);
    await page.fill('#node-config-input-apiKey', space.api_keys.admin ?? '');

    // the case: a live-capture URL with a typo and a wrong token
    await page.fill('#node-config-input-liveCaptureUrl', `${sim.liveCaptureUrl}/typo`);
    await page.fill('#node-config-input-accessToken', 'wrong-token');
    let text = await runTest();
    expect(text).toMatch(/✔\s*Workflow list: OK/);
    expect(text).toMatch(/✖\s*Live capture: Wrong path: /);
    await page.locator('#node-config-media-spaces-test-result').scrollIntoViewIfNeeded();
    await screenshot(page, 'config-test-connection.png', 'tray');

    await page.fill('#node-config-input-liveCaptureUrl', sim.liveCaptureUrl);
    text = await runTest();
    expect(text).toMatch(/✖\s*Live capture: Wrong access token: .*unknown access token/);

    await page.fill('#node-config-input-workflowUrl', `${sim.workflowUrl}/workflow/v1`);
    text = await runTest();
    expect(text).toMatch(/✖\s*Workflow list: The Workflow URL already contains the path prefix \/workflow\/v1/);
    expect(text).toMatch(/–\s*Submit scope: not checked/);

    await page.fill('#node-config-input-workflowUrl', sim.workflowUrl);
    await page.fill('#node-config-input-apiKey', 'not-a-key');
    text = await runTest();
    expect(text).toMatch(/✖\s*Workflow list: Wrong API key: .*unknown API key/);

    await page.fill('#node-config-input-apiKey', space.api_keys.access ?? '');
    text = await runTest();
    expect(text).toMatch(/✖\s*Submit scope: Missing scope: .*workflow:workflow-management/);

    await page.fill('#node-config-input-apiKey', space.api_keys.admin ?? '');
    await page.fill('#node-config-input-spaceId', '99999999-9999-4999-8999-999999999999');
    text = await runTest();
    expect(text).toMatch(/✖\s*Workflow list: Wrong Space ID/);

    await page.fill('#node-config-input-spaceId', space.space_id);
    await page.fill('#node-config-input-workflowUrl', 'http://127.0.0.1:1');
    await page.fill('#node-config-input-accessToken', '');
    text = await runTest();
    expect(text).toMatch(/✖\s*Workflow list: Connection refused/);
    expect(text).toMatch(/Live capture: not checked: no access token/);
    // validation wording: the labels people see (lib/rules via the dialog's validators)
    await page.fill('#node-config-input-workflowUrl', '');
    await page.fill('#node-config-input-spaceId', '');
    const errors = await page.evaluate(() => {
      const w = window as unknown as {
        RED: {
          nodes: { getType(t: string): { defaults: Record<string, { validate(v: unknown, o: unknown): unknown }> } };
        };
      };
      const defaults = w.RED.nodes.getType('media-spaces-config').defaults;
      const self = {
        _: (k: string) =>
          ({
            'media-spaces-config.label.workflowUrl': 'Workflow URL',
            'media-spaces-config.label.spaceId': 'Space ID',
          })[k] ?? k,
      };
      return [defaults.workflowUrl.validate.call(self, '', {}), defaults.spaceId.validate.call(self, '', {})];
    });
    expect(errors).toEqual(['Workflow URL is required', 'Space ID is required']);
    expect(stack.pageErrors).toEqual([]);
  });

  it('Sign in: the service page in a popup, the token kept, deploy, the nodes work without an API key', async () => {
    const { page, sim } = stack;
    const space = sim.info().spaces[0];
    await page.fill('#node-config-input-workflowUrl', sim.workflowUrl);
    await page.fill('#node-config-input-liveCaptureUrl', sim.liveCaptureUrl);
    await page.fill('#node-config-input-spaceId', space.space_id);
    await page.fill('#node-config-input-apiKey', '');
    await page.fill('#node-config-input-accessToken', space.access_token ?? '');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.click('#node-config-media-spaces-signin')]);
    await popup.waitForSelector('#username');
    expect(popup.url()).toContain(`${sim.workflowUrl}/auth/oauth2?response_type=token&client_id=node-red-media-spaces`);
    await popup.fill('#username', 'producer');
    await popup.fill('#password', 'producer-password');
    await Promise.all([popup.waitForEvent('close'), popup.click('button[value="allow"]')]);
    const state = page.locator('#node-config-media-spaces-signin-state');
    await expect
      .poll(() => state.textContent(), { timeout: 10_000 })
      .toMatch(/^Signed in: the token is used instead of the API key until /);
    const text = await runTest();
    expect(text).toMatch(/✔\s*Workflow list: OK: the sign-in token can list workflows/);
    expect(text).toMatch(/✔\s*Submit scope: OK/);
    await page.click('#node-config-dialog-ok');
    await page.locator('#node-config-dialog-ok').waitFor({ state: 'detached' });
    await closeNode(page);
    const server = (await editorNode(page, SUBMIT))?.server as string;
    await page.evaluate((id) => {
      const w = window as unknown as {
        RED: {
          nodes: { node(id: string): Record<string, unknown> | null; dirty(d: boolean): void };
          editor: { validateNode(n: unknown): void };
          view: { redraw(full: boolean): void };
        };
      };
      // setup: the list node uses the same server (the submit-job dialog's server was made through the UI)
      const list = w.RED.nodes.node('e2e0opxlist00001');
      if (list) {
        list.server = id;
        list.changed = true;
        list.dirty = true;
        w.RED.editor.validateNode(list);
        w.RED.nodes.dirty(true);
        w.RED.view.redraw(true);
      }
    }, server);
    await deploy(page);
    const before = sim.requests().length;
    await clickInject(page, LIST_INJECT);
    await waitForStatus(page, LIST, (s) => s.fill === 'green');
    // a default inject (timestamp payload) wired to submit job: the settings' workflow gets a job
    await clickInject(page, INJECT);
    const status = await waitForStatus(page, SUBMIT, (s) => s.fill === 'green' || s.fill === 'red');
    expect(status.fill).toBe('green');
    const seen = sim.requests().slice(before);
    expect(seen.map((r) => `${r.route} ${r.status}`)).toEqual(['list 200', 'submit 200']);
    expect(seen.every((r) => r.authorization_present)).toBe(true);
    expect(stack.pageErrors).toEqual([]);
  });

  it('Test connection on the deployed config: its stored credentials for its own address, none for another one', async () => {
    const { page, sim } = stack;
    await openNode(page, SUBMIT);
    await page.click('#node-input-btn-server-edit');
    await page.locator('#node-config-input-workflowUrl').waitFor({ state: 'visible' });
    let text = await runTest();
    expect(text).toMatch(/✔\s*Workflow list: OK: the sign-in token can list workflows/);
    expect(text).toMatch(/✔\s*Live capture: OK: the access token is accepted/);
    // the same server under another name: another address as far as the stored credentials go
    const other = sim.workflowUrl.replace('127.0.0.1', 'localhost');
    await page.fill('#node-config-input-workflowUrl', other);
    await page.fill('#node-config-input-liveCaptureUrl', other);
    const before = sim.requests().length;
    text = await runTest();
    expect(text).toContain(
      'Workflow list: not checked: the stored sign-in token is only sent to the deployed Workflow URL (with its Path prefix, Space ID and TLS setting); Sign in again or type an API key to test another address.',
    );
    expect(text).toContain(
      'Live capture: not checked: the stored access token is only sent to the deployed Live capture URL (with its Space ID and TLS setting); type the token to test another address.',
    );
    expect(sim.requests().length).toBe(before);
    // each verdict is a text node in its row: the sentence brought no markup
    const markup = await page
      .locator('#node-config-media-spaces-test-result span:last-child')
      .evaluateAll((spans) => spans.map((s) => s.children.length));
    expect(markup.every((n) => n === 0)).toBe(true);
    await page.click('#node-config-dialog-cancel');
    await page.locator('#node-config-dialog-cancel').waitFor({ state: 'detached' });
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });

  it('a failure in the Debug sidebar: the whole sentence, no [object Object], no stack; a short status', async () => {
    const { page } = stack;
    await showDebugSidebar(page);
    await clickInject(page, BAD_INJECT);
    const status = await waitForStatus(page, BAD_SUBMIT, (s) => s.fill === 'red');
    expect(status.text).toBe('401: key not accepted');
    // one line, the reason first: no object to unfold
    const entry = page.locator('.red-ui-debug-msg').filter({ hasText: 'unknown API key' }).last();
    await entry.waitFor({ timeout: 10_000 });
    expect((await entry.locator('.red-ui-debug-msg-payload').innerText()).trim()).toBe(
      '"unknown API key (HTTP 401 from Submit job)"',
    );
    const shown = (await debugMessages(page)).join('\n');
    expect(shown).not.toContain('[object Object]');
    expect(shown).not.toMatch(/\bat .*\.js:\d+/);
    await screenshot(page, 'debug-error.png');
    expect(stack.pageErrors).toEqual([]);
  });

  it('inputs form: long labels wrap uncut, "an Int32", drop-frame 29.97 accepted and ";" at 25 explained', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    // the searchable picker: a search by id, then a click on its row
    await page.fill('#node-media-spaces-workflow-search', RENDER);
    await pickWorkflowRow(page.locator('#node-media-spaces-workflow-list'), RENDER);
    const form = page.locator('#node-media-spaces-inputs-form');
    await waitForForm(page, form);
    const int32 = form.locator('input[data-variable="VideoBitrateKbps"]');
    await int32.waitFor();
    const label = int32.locator('xpath=preceding-sibling::label[1]');
    // the whole label is on screen (wrapped, not cut), and in the tooltip
    const fits = await label.evaluate(
      (el) => el.scrollWidth <= el.clientWidth && el.scrollHeight <= el.clientHeight + 1,
    );
    expect(fits).toBe(true);
    // no default in the workflow: marked required
    expect(await label.textContent()).toBe('VideoBitrateKbps (Int32) *');
    expect(await label.getAttribute('title')).toMatch(/^VideoBitrateKbps \(Int32\)/);
    const rowText = (field: typeof int32) => field.evaluate((el) => el.closest('.form-row')?.textContent ?? '');
    await int32.fill('fast');
    expect(await rowText(int32)).toContain('must be an Int32: a whole number from -2147483648 to 2147483647');
    const timecode = form.locator('input[data-variable="StartTimecode"]');
    await timecode.fill('10:00:00;00@29.97');
    expect(await timecode.evaluate((el) => el.classList.contains('input-error'))).toBe(false);
    await timecode.fill('10:00:00;00@25');
    expect(await rowText(timecode)).toContain(
      '";" before the frames marks drop-frame, which only 29.97 has; write 10:00:00:00@25',
    );
    await closeNode(page, 'cancel');
    expect(stack.pageErrors).toEqual([]);
  });
});
