import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { clickInject, closeAllTrays, deploy, importNodes, openNode, waitForStatus } from './support/editor';
import { showSidebarTab } from './support/sidebar-tabs';
import { type Stack, screenshot, simulatorServer, startStack } from './support/stack';

/**
 * The words an operator reads: the coordination config node by its name, not its type, in the
 * dialog's title and the Help tree; Test connection's results brought into view and its
 * live-capture probe explained; follow job's status with the one job's progress.
 */

const FOLLOW = 'e2e0wrdfollow001';
const INJECT = 'e2e0wrdinject001';
const SUBMIT = 'e2e0wrdsubmit001';
const SERVER = 'e2e0wrdserver001';
const TRANSCODE = 'aaaaaaaa-0000-4000-8000-000000000001';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('words');
  const space = stack.sim.info().spaces[0];
  await importNodes(stack.page, [
    simulatorServer(stack, SERVER, {
      liveCaptureUrl: stack.sim.liveCaptureUrl,
      credentials: { apiKey: space.api_keys.admin, accessToken: space.access_token },
    }),
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
    {
      id: SUBMIT,
      type: 'media-spaces-submit-job',
      name: '',
      server: SERVER,
      workflowId: TRANSCODE,
      x: 330,
      y: 100,
      wires: [[FOLLOW]],
    },
    { id: FOLLOW, type: 'media-spaces-follow-job', name: '', server: SERVER, x: 540, y: 100, wires: [[], []] },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

/** The Help sidebar's tree with this package's node types listed. */
async function openHelpTree() {
  const { page } = stack;
  await showSidebarTab(page, 'help', '.red-ui-sidebar-help-toc');
  const toc = page.locator('.red-ui-sidebar-help-toc');
  const ours = toc.locator('.red-ui-treeList-label').filter({ hasText: /^@media-spaces\/node-red$/ });
  await ours.waitFor();
  if (!(await toc.getByText('submit job', { exact: true }).isVisible())) await ours.click();
  await toc.getByText('submit job', { exact: true }).waitFor();
  return toc;
}

describe('words', () => {
  it('the coordination config node is "Redis coordination" in the add dialog and the Help tree', async () => {
    const { page } = stack;
    await openNode(page, FOLLOW);
    await page.click('#node-input-btn-coordination-add');
    await page.locator('#node-config-input-url').waitFor({ state: 'visible' });
    await page.waitForTimeout(400);
    const title = (await page.locator('.red-ui-tray-titlebar').last().textContent()) ?? '';
    expect(title).toContain('Add new Redis coordination config node');
    expect(title).not.toContain('media-spaces-coordination');
    await closeAllTrays(page);

    await showSidebarTab(page, 'help', '.red-ui-sidebar-help-toc');
    const toc = page.locator('.red-ui-sidebar-help-toc');
    await toc
      .locator('.red-ui-treeList-label')
      .filter({ hasText: /^@media-spaces\/node-red$/ })
      .click();
    await expect.poll(async () => (await toc.textContent()) ?? '').toContain('Redis coordination');
    expect(await toc.textContent()).not.toContain('media-spaces-coordination');
  });

  it('the coordination dialog: its defaults, the plain redis:// warning only off this machine, the rules beside the fields', async () => {
    const { page } = stack;
    await openNode(page, FOLLOW);
    await page.click('#node-input-btn-coordination-add');
    const url = page.locator('#node-config-input-url');
    await url.waitFor({ state: 'visible' });
    expect(await url.inputValue()).toBe('redis://127.0.0.1:6379');
    expect(await page.locator('#node-config-input-leaseMs').inputValue()).toBe('30000');
    expect(await page.locator('#node-config-input-doneTtlDays').inputValue()).toBe('7');
    expect(await page.locator('#node-config-input-whenUnreachable').inputValue()).toBe('skip');
    const warning = page.locator('#node-config-media-spaces-coordination-plain');
    expect(await warning.isVisible()).toBe(false);
    await url.fill('redis://cache.localhost:6379');
    expect(await warning.isVisible()).toBe(false);
    await url.fill('redis://redis.example.com:6379');
    await warning.waitFor({ state: 'visible' });
    expect(await warning.textContent()).toContain('redis://');
    expect(await warning.textContent()).toContain('redis.example.com');
    await url.fill('rediss://redis.example.com:6379');
    await warning.waitFor({ state: 'hidden' });

    const lease = page.locator('#node-config-input-leaseMs');
    await lease.fill('500');
    await lease.dispatchEvent('change');
    await expect.poll(() => lease.getAttribute('class')).toContain('input-error');
    await lease.fill('60000');
    await lease.dispatchEvent('change');
    await expect.poll(() => lease.getAttribute('class')).not.toContain('input-error');
    await url.fill('http://127.0.0.1:6379');
    await url.dispatchEvent('change');
    await expect.poll(() => url.getAttribute('class')).toContain('input-error');
    // the reason Node-RED shows beside the field: the rule the runtime applies
    const reasons = await page.evaluate(() => {
      const w = window as unknown as {
        RED: {
          nodes: {
            getType(t: string): {
              defaults: Record<string, { validate(this: unknown, v: unknown, o: unknown): unknown }>;
              _(id: string): string;
            };
          };
        };
      };
      const definition = w.RED.nodes.getType('media-spaces-coordination');
      // as Node-RED calls a validator: on the node, whose _ reads its type's catalogue
      const node = { type: 'media-spaces-coordination', _: definition._ };
      const { leaseMs, doneTtlDays } = definition.defaults;
      return [leaseMs.validate.call(node, '500', {}), doneTtlDays.validate.call(node, '400', {})];
    });
    expect(reasons).toEqual(['Lease must be 1000 to 3600000 ms', 'Keep done records must be 1 to 365 days']);
    await closeAllTrays(page);
  });

  it("every node's help fits the Help sidebar at its default width: nothing wider than the panel", async () => {
    const { page } = stack;
    const toc = await openHelpTree();
    const entries = toc.locator('.red-ui-treeList-label').filter({ has: page.locator('.red-ui-node-label') });
    const names = (await entries.allTextContents()).filter((n) => n.trim() !== '');
    const ours = names.filter((n) => /server|coordination|workflow|job|channel|event|schedule|follow/i.test(n));
    expect(ours.length).toBeGreaterThanOrEqual(10);
    const wide: string[] = [];
    for (const name of ours) {
      await entries.filter({ hasText: name }).first().click();
      await page.waitForTimeout(150);
      const overflow = await page.evaluate(() => {
        const panel = document.querySelector('.red-ui-sidebar-help-stack > div:last-child') as HTMLElement | null;
        if (!panel) return ['no help panel'];
        const out: string[] = [];
        for (const el of Array.from(panel.querySelectorAll('pre, code, p, dd, li')) as HTMLElement[]) {
          if (el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== 'inline')
            out.push(el.textContent?.slice(0, 40) ?? '');
        }
        if (panel.scrollWidth > panel.clientWidth + 1) {
          // name what sticks out past the panel's right edge
          const right = panel.getBoundingClientRect().right;
          const past = (Array.from(panel.querySelectorAll('*')) as HTMLElement[]).filter(
            (el) => el.getBoundingClientRect().right > right + 1 || el.scrollWidth > el.clientWidth + 1,
          );
          out.push(
            `(the panel scrolls sideways ${panel.scrollWidth}>${panel.clientWidth}: ${past.map((el) => `<${el.tagName}.${el.className}> ${el.scrollWidth}/${el.clientWidth} ${el.textContent?.slice(0, 30)}`).join('; ')})`,
          );
        }
        return out;
      });
      if (overflow.length > 0) wide.push(`${name}: ${overflow.join(' | ')}`);
    }
    expect(wide).toEqual([]);
  });

  it('Test connection: the results are brought into view, and the probe is not quoted as a deletion', async () => {
    const { page, sim } = stack;
    await openNode(page, SUBMIT);
    await page.click('#node-input-btn-server-edit');
    await page.locator('#node-config-input-liveCaptureUrl').waitFor({ state: 'visible' });
    // a small window, where the results land below the dialog's fold
    await page.setViewportSize({ width: 1400, height: 600 });
    await page.fill('#node-config-input-liveCaptureUrl', `${sim.liveCaptureUrl}/typo`);
    await page.click('#node-config-media-spaces-test');
    const result = page.locator('#node-config-media-spaces-test-result');
    await expect.poll(() => result.textContent(), { timeout: 20_000 }).toMatch(/Live capture:/);
    const text = (await result.textContent()) ?? '';
    expect(text).toMatch(/Wrong path/);
    expect(text).not.toMatch(/DELETE/);
    expect(text).toMatch(/harmless probe/);
    await expect
      .poll(() =>
        result.evaluate((el) => {
          const box = el.getBoundingClientRect();
          const tray = el.closest('.red-ui-tray-body')?.getBoundingClientRect();
          return Boolean(tray && box.bottom <= tray.bottom + 1 && box.top >= tray.top);
        }),
      )
      .toBe(true);
    await page.setViewportSize({ width: 1400, height: 900 });
    await closeAllTrays(page);
  });

  it("follow job's status gives the one job's progress", async () => {
    const { page } = stack;
    await page.evaluate(() =>
      (window as unknown as { RED: { nodes: { dirty(d: boolean): void } } }).RED.nodes.dirty(true),
    );
    await deploy(page);
    await clickInject(page, INJECT);
    const status = await waitForStatus(page, FOLLOW, (s) => /following 1 job: \d+%/.test(s.text ?? ''));
    expect(status.text).toMatch(/^following 1 job: \d+%$/);
    await screenshot(page, 'follow-job-progress.png');
    expect(stack.pageErrors).toEqual([]);
  });
});
