import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clickInject,
  closeNode,
  deploy,
  editorNode,
  importNodes,
  openNode,
  pickWorkflowRow,
  typedInputValue,
  waitForForm,
  waitForStatus,
} from './support/editor';
import { type Stack, screenshot, simulatorServer, startStack } from './support/stack';

/**
 * The submit-job inputs form agrees with the runtime, for the demo's "Loudness normalisation":
 * its Delivery label's Channels (Byte, a list of options, no default) is required.
 */

const SERVER = 'e2e0frmserver001';
const INJECT = 'e2e0frminject001';
const SUBMIT = 'e2e0frmsubmit001';
const LOUDNESS = 'aaaaaaaa-0000-4000-8000-000000000013';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('inputs-form');
  await importNodes(stack.page, [
    simulatorServer(stack, SERVER),
    {
      id: INJECT,
      type: 'inject',
      name: '',
      props: [{ p: 'payload' }],
      payload: '',
      payloadType: 'date',
      x: 130,
      y: 100,
      wires: [[SUBMIT]],
    },
    { id: SUBMIT, type: 'media-spaces-submit-job', name: '', server: SERVER, x: 360, y: 100, wires: [[]] },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

const form = () => stack.page.locator('#node-media-spaces-inputs-form');
const channels = () => form().locator('select[data-label="delivery"][data-parameter="Channels"]');
const rowText = async (field: ReturnType<typeof channels>) =>
  field.evaluate((el) => el.closest('.form-row')?.textContent ?? '');
const inputsJson = async () => JSON.parse((await typedInputValue(stack.page, '#node-input-jobInputs')) || '{}');

describe('the inputs form and the runtime agree', () => {
  it('a list without a default offers no "(default)", is marked required and says so, as the runtime will', async () => {
    const { page } = stack;
    await openNode(page, SUBMIT);
    await page.fill('#node-media-spaces-workflow-search', LOUDNESS);
    await pickWorkflowRow(page.locator('#node-media-spaces-workflow-list'), LOUDNESS);
    await waitForForm(page, channels());
    const choices = await channels().locator('option').allTextContents();
    expect(choices).toEqual(['(choose)', '2', '6']);
    const standard = form().locator('select[data-parameter="Standard"]');
    expect((await standard.locator('option').allTextContents())[0]).toBe('(default: EBU R128)');
    // required: marked in the label, and the runtime's own sentence under the field (with empty
    // Inputs the runtime misses the whole label first)
    expect(await rowText(channels())).toContain('*');
    expect(await rowText(channels())).toContain('is required');
    expect(await rowText(standard)).not.toContain('*');
  });

  it('"Fill inputs → Merge, keep my values" writes no "" for the untouched list', async () => {
    const { page } = stack;
    await form().locator('input[data-parameter="Retries"]').fill('3');
    await page.click('#node-media-spaces-inputs-template');
    await page.click('#node-media-spaces-fill-merge');
    await expect.poll(inputsJson).toMatchObject({ labels: { delivery: { Retries: '3' } } });
    const written = await inputsJson();
    expect(written.labels.delivery).not.toHaveProperty('Channels');
    expect(written.labels.loudness).toEqual({ TargetLufs: '-23', TruePeakDbtp: '-1', Standard: 'EBU R128' });
    // the node is invalid for the reason the runtime would give, not for a value nobody typed
    await expect.poll(() => rowText(channels())).toContain('is required (Byte) and has no default');
    await screenshot(page, 'inputs-form-required.png', 'tray');
  });

  it('choosing a channel layout clears the mark; deployed, the runtime accepts what the editor accepted', async () => {
    const { page, sim } = stack;
    await channels().selectOption('6');
    await expect.poll(() => rowText(channels())).not.toContain('is required');
    await closeNode(page);
    expect((await editorNode(page, SUBMIT))?.valid).toBe(true);
    await deploy(page);
    const before = sim.requests().length;
    await clickInject(page, INJECT);
    const status = await waitForStatus(page, SUBMIT, (s) => s.fill === 'green' || s.fill === 'red');
    expect(status.fill).toBe('green');
    expect(
      sim
        .requests()
        .slice(before)
        .map((r) => `${r.route} ${r.status}`),
    ).toContain('submit 200');
    expect(stack.pageErrors).toEqual([]);
  });
});

describe('a failed read of the workflow inputs', () => {
  it('is said with how to try again; clicking the row again reads them, shows the form and the line goes', async () => {
    const { page, sim } = stack;
    const hint = page.locator('#node-media-spaces-submit-hint');
    sim.addFault({ route: 'workflow', kind: 'status', status: 503, count: 1 });
    // reopened, the dialog reads the chosen workflow's inputs at once: that read fails
    await openNode(page, SUBMIT);
    await expect
      .poll(() => hint.textContent())
      .toBe(
        "Could not read the workflow's inputs (click its row to try again): injected fault: HTTP 503 (from Get workflow)",
      );
    expect(await form().isVisible()).toBe(false);
    await page.locator(`#node-media-spaces-workflow-list .ms-wf-row[data-id="${LOUDNESS}"]`).click();
    await waitForForm(page, channels());
    expect(await hint.textContent()).toBe('');
    expect(await channels().inputValue()).toBe('6');
    await closeNode(page, 'cancel');
    // the one read that failed, as the browser logs it (the runtime answers 502 for the service's 503)
    expect(stack.pageErrors).toEqual([
      'Failed to load resource: the server responded with a status of 502 (Bad Gateway)',
    ]);
  });
});
