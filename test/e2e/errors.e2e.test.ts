import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickInject, debugMessages, deploy, importNodes, showDebugSidebar, waitForStatus } from './support/editor';
import { type Stack, screenshot, simulatorServer, startStack } from './support/stack';

/**
 * A job submitted to an archived workflow, as an operator sees the failure: without a Catch
 * node in the Debug sidebar, with one through a Debug node showing msg.error.message (as the
 * examples do), and in the node's status.
 */

const SERVER = 'e2e0errserver001';
const HDCAM = 'aaaaaaaa-0000-4000-8000-000000000021';
// short enough for the 80 characters the Debug sidebar shows of a string
const SENTENCE = 'workflow "HDCAM ingest" is archived (HTTP 422 from Submit job)';

const inject = (id: string, y: number, target: string) => ({
  id,
  type: 'inject',
  name: '',
  props: [{ p: 'payload' }],
  payload: '',
  payloadType: 'date',
  repeat: '',
  once: false,
  x: 130,
  y,
  wires: [[target]],
});

const submit = (id: string, y: number) => ({
  id,
  type: 'media-spaces-submit-job',
  name: '',
  server: SERVER,
  workflowId: HDCAM,
  x: 360,
  y,
  wires: [[]],
});

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('errors');
  await importNodes(stack.page, [
    simulatorServer(stack, SERVER),
    inject('e2e0errinject001', 100, 'e2e0errsubmit001'),
    submit('e2e0errsubmit001', 100),
    inject('e2e0errinject002', 220, 'e2e0errsubmit002'),
    submit('e2e0errsubmit002', 220),
    // the examples' error path: a Catch for the second node, a Debug showing msg.error.message
    {
      id: 'e2e0errcatch0001',
      type: 'catch',
      name: 'errors',
      scope: ['e2e0errsubmit002'],
      x: 130,
      y: 300,
      wires: [['e2e0errdebug0001']],
    },
    {
      id: 'e2e0errdebug0001',
      type: 'debug',
      name: 'errors',
      active: true,
      tosidebar: true,
      complete: 'error.message',
      targetType: 'msg',
      x: 360,
      y: 300,
      wires: [],
    },
  ]);
  // setup: an import alone leaves Deploy disabled; a user's first edit would enable it
  await stack.page.evaluate(() =>
    (window as unknown as { RED: { nodes: { dirty(d: boolean): void } } }).RED.nodes.dirty(true),
  );
  await deploy(stack.page);
  await showDebugSidebar(stack.page);
});

afterAll(async () => {
  await stack?.close();
});

describe('a failure an operator reads', () => {
  it('without a Catch: one line in the Debug sidebar, the reason first; the status names the cause', async () => {
    const { page } = stack;
    await clickInject(page, 'e2e0errinject001');
    const status = await waitForStatus(page, 'e2e0errsubmit001', (s) => s.fill === 'red');
    expect(status.text).toBe('422: workflow archived');
    const entry = page.locator('.red-ui-debug-msg').filter({ hasText: 'HDCAM ingest' }).last();
    await entry.waitFor({ timeout: 10_000 });
    // no click: the sentence is on screen as it is, not inside a collapsed object
    const payload = entry.locator('.red-ui-debug-msg-payload');
    expect((await payload.innerText()).trim()).toBe(`"${SENTENCE}"`);
    expect(await payload.locator('.red-ui-debug-msg-object-handle').count()).toBe(0);
    await screenshot(page, 'debug-error-archived.png');
  });

  it('with a Catch: msg.error.message is the same sentence, whole', async () => {
    const { page } = stack;
    await clickInject(page, 'e2e0errinject002');
    await expect
      .poll(async () => (await debugMessages(page)).filter((m) => m.includes('node: errors')).join('\n'), {
        timeout: 10_000,
      })
      .toContain(SENTENCE);
    const shown = (await debugMessages(page)).join('\n');
    expect(shown).not.toContain('[object Object]');
    expect(shown).not.toContain('failed: HTTP');
    expect(stack.pageErrors).toEqual([]);
  });
});
