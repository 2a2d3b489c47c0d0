import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { closeAllTrays, closeNode, editorNode, importNodes, openNode } from './support/editor';
import { type Stack, screenshot, startStack } from './support/stack';

/**
 * The schedule node's edit dialog previews the next five starts of each
 * recording window. The expected instants are computed here independently
 * of the package's cron code (plain Intl arithmetic).
 */

const SCHEDULE = 'e2e0schedule0001';

let stack: Stack;

beforeAll(async () => {
  stack = await startStack('schedule');
  await importNodes(stack.page, [
    {
      id: SCHEDULE,
      type: 'media-spaces-schedule',
      name: 'Newsroom recordings',
      source: 'yaml',
      yaml: [
        'timezone: Europe/London',
        'windows:',
        '  - id: evening-news',
        '    name: Evening news',
        '    cron: "0 18 * * mon-fri"',
        '    duration: 1h30m',
        '    channel:',
        '      tags: [news]',
        '',
      ].join('\n'),
      x: 180,
      y: 120,
      wires: [[], [], []],
    },
  ]);
});

afterAll(async () => {
  await stack?.close();
});

afterEach(async (ctx) => {
  if (stack && ctx.task.result?.state === 'fail') await closeAllTrays(stack.page);
});

/** The UTC instant at which the wall clock in `timeZone` reads y-m-d h:min. */
function zonedInstant(timeZone: string, y: number, m: number, d: number, h: number, min: number): number {
  const fmt = new Intl.DateTimeFormat('en-GB', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
  });
  const wall = Date.UTC(y, m - 1, d, h, min);
  let guess = wall;
  for (let i = 0; i < 3; i++) {
    const p = Object.fromEntries(fmt.formatToParts(new Date(guess)).map((x) => [x.type, x.value]));
    const seen = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute));
    guess += wall - seen;
  }
  return guess;
}

/** The next `count` starts at h:min local time on the given weekdays (0 = Sunday), after `from`. */
function nextStarts(
  timeZone: string,
  h: number,
  min: number,
  weekdays: number[],
  from: number,
  count: number,
): number[] {
  const out: number[] = [];
  const today = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })
    .format(new Date(from))
    .split('-')
    .map(Number);
  for (let offset = 0; out.length < count && offset < 30; offset++) {
    const day = new Date(Date.UTC(today[0], today[1] - 1, today[2] + offset));
    if (!weekdays.includes(day.getUTCDay())) continue;
    const at = zonedInstant(timeZone, day.getUTCFullYear(), day.getUTCMonth() + 1, day.getUTCDate(), h, min);
    if (at > from) out.push(at);
  }
  return out;
}

/** The preview's starts (each item's title is the start instant) under the window's heading. */
async function previewStarts(): Promise<number[]> {
  const titles = await stack.page
    .locator('#ms-schedule-preview ol li')
    .evaluateAll((items) => items.map((li) => li.getAttribute('title') ?? ''));
  return titles.map((t) => Date.parse(t));
}

describe('schedule node dialog', () => {
  it('previews the next five starts of the YAML schedule', async () => {
    const { page } = stack;
    const opened = Date.now();
    await openNode(page, SCHEDULE);
    const items = page.locator('#ms-schedule-preview ol li');
    await expect.poll(() => items.count(), { timeout: 10_000 }).toBe(5);
    const preview = (await page.locator('#ms-schedule-preview').textContent()) ?? '';
    expect(preview).toContain('Evening news (evening-news)');
    expect(preview).toContain('Europe/London');

    const starts = await previewStarts();
    const expected = nextStarts('Europe/London', 18, 0, [1, 2, 3, 4, 5], opened - 60_000, 5);
    expect(starts).toEqual(expected);
    // each entry also has a readable label
    for (const text of await items.allTextContents()) expect(text.trim().length).toBeGreaterThan(4);
    await screenshot(page, 'schedule-dialog.png');
  });

  it('switching to the editor list and changing cron and zone updates the preview', async () => {
    const { page } = stack;
    await page.locator('#node-input-source').selectOption('editor');
    await page.locator('#node-input-windows-container:not([data-loading])').waitFor({ timeout: 10_000 });
    const row = page.locator('#node-input-windows-container li').first();
    await row.locator('.ms-w-cron').waitFor({ state: 'visible', timeout: 10_000 });
    // the YAML's window came across
    expect(await row.locator('.ms-w-id').inputValue()).toBe('evening-news');
    expect(await row.locator('.ms-w-cron').inputValue()).toBe('0 18 * * mon-fri');

    await row.locator('.ms-w-cron').fill('30 6 * * *');
    await row.locator('.ms-w-timezone').fill('America/New_York');
    const from = Date.now();
    await expect
      .poll(async () => (await page.locator('#ms-schedule-preview').textContent()) ?? '', { timeout: 10_000 })
      .toContain('America/New_York');
    await expect.poll(() => page.locator('#ms-schedule-preview ol li').count()).toBe(5);
    expect(await previewStarts()).toEqual(
      nextStarts('America/New_York', 6, 30, [0, 1, 2, 3, 4, 5, 6], from - 60_000, 5),
    );
  });

  it('a bad cron expression is reported in the preview instead of starts', async () => {
    const { page } = stack;
    const row = page.locator('#node-input-windows-container li').first();
    await row.locator('.ms-w-cron').fill('61 25 * * *');
    const issues = page.locator('#ms-schedule-preview .ms-schedule-issues li');
    await expect.poll(() => issues.count(), { timeout: 10_000 }).toBeGreaterThan(0);
    expect(((await issues.first().textContent()) ?? '').toLowerCase()).toMatch(/cron|minute|hour/);
    expect(await page.locator('#ms-schedule-preview ol li').count()).toBe(0);

    // fixed again, and saved: the node keeps the edited window
    await row.locator('.ms-w-cron').fill('30 6 * * *');
    await expect.poll(() => page.locator('#ms-schedule-preview ol li').count(), { timeout: 10_000 }).toBe(5);
    await closeNode(page);
    const saved = await editorNode(page, SCHEDULE);
    expect(saved?.source).toBe('editor');
    const windows = await page.evaluate(
      (id) =>
        (window as unknown as { RED: { nodes: { node(id: string): { windows: unknown } } } }).RED.nodes.node(id)
          .windows,
      SCHEDULE,
    );
    expect(windows).toEqual([
      expect.objectContaining({ id: 'evening-news', cron: '30 6 * * *', timezone: 'America/New_York' }),
    ]);
  });

  it('the editor showed no script errors', () => {
    expect(stack.pageErrors).toEqual([]);
  });
});
