import { stat } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { parseScheduleObject, parseScheduleYaml } from '../../../lib/schedule/config';
import {
  PREVIEW_LIMITS,
  type PreviewResponse,
  previewSchedule,
  previewScheduleAsync,
} from '../../../lib/schedule/preview';
import { scanWindows } from '../../../lib/schedule/window-cut';

const NOW = Date.UTC(2024, 10, 21, 12);

/** `n` windows starting daily, each with a channel template. */
function document(n: number, window: (i: number) => Record<string, unknown> = () => ({})) {
  const windows = [];
  for (let i = 0; i < n; i++) {
    windows.push({
      id: `w${i}`,
      name: `Programme ${i}`,
      cron: `${i % 60} ${Math.floor(i / 60) % 24} * * *`,
      duration: '30m',
      channel: { name: 'Recording {{window.id}} {{slot.local_start}}' },
      ...window(i),
    });
  }
  return { schedule_id: 'big', timezone: 'Europe/London', windows };
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
const issueKeys = (issues: { line?: number; path: string; message: string }[]) =>
  issues.map((i) => `${i.line ?? '-'} ${i.path}: ${i.message}`).sort();

function scan(text: string) {
  const steps = scanWindows(text);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

describe('editor preview of a large schedule', () => {
  it('previews the first windows of 20,000 and says how many it left out', () => {
    const preview = previewSchedule({ yaml: stringify(document(20_000)), now: NOW });
    expect(preview.ok).toBe(true);
    expect(preview.total_windows).toBe(20_000);
    expect(preview.windows).toHaveLength(PREVIEW_LIMITS.windows);
    expect(preview.windows.map((w) => w.id)).toEqual(document(PREVIEW_LIMITS.windows).windows.map((w) => w.id));
    expect(preview.windows[0].next).toHaveLength(5);
    expect(preview.omitted).toEqual({
      windows: 20_000 - PREVIEW_LIMITS.windows,
      listed: 0,
      occurrences: 0,
      issues: 0,
      echo: true,
    });
    expect(preview.limits).toEqual(PREVIEW_LIMITS);
    // the model of 50 windows is not sent back: the editor's list would take it for the whole document
    expect(preview.model).toBeUndefined();
    expect(jsonBytes(preview)).toBeLessThanOrEqual(PREVIEW_LIMITS.bytes);
  });

  it('does the same for the editor list model, without the YAML of a list it did not read', () => {
    const preview = previewSchedule({ model: document(20_000), now: NOW });
    expect(preview.ok).toBe(true);
    expect(preview.windows).toHaveLength(PREVIEW_LIMITS.windows);
    expect(preview.total_windows).toBe(20_000);
    expect(preview.omitted).toMatchObject({ windows: 20_000 - PREVIEW_LIMITS.windows, echo: true });
    expect(preview.yaml).toBeUndefined();
  });

  it('takes the first windows of a list with its length as the whole list: the same answer, no YAML of a part', () => {
    const whole = previewSchedule({ model: document(20_000), now: NOW });
    const first = document(PREVIEW_LIMITS.windows);
    const sent = previewSchedule({ model: first, total: 20_000, now: NOW });
    expect(sent).toEqual(whole);
    // a count below what was sent is not believed; a part of a short list is not echoed as the list
    expect(previewSchedule({ model: document(3), total: 1, now: NOW })).toMatchObject({ total_windows: 3 });
    const part = previewSchedule({ model: document(10), total: 40, now: NOW });
    expect(part).toMatchObject({ ok: true, total_windows: 40, omitted: { windows: 30, echo: true } });
    expect(part.windows).toHaveLength(10);
    expect(part.yaml).toBeUndefined();
    for (const total of ['40', 40.5, -1, Number.POSITIVE_INFINITY]) {
      expect(previewSchedule({ model: document(10), total, now: NOW }).total_windows).toBe(10);
    }
  });

  it('finds, a few windows at a time, exactly the issues a deploy finds, with their lines', () => {
    const doc = {
      windows: document(37, (i) => ({
        ...(i === 25 ? { id: 'w3' } : {}),
        ...(i % 7 === 0 ? { cron: '61 * * * *' } : {}),
        ...(i === 12 ? { duration: 'soon' } : {}),
        ...(i === 30 ? { channel: { name: '{{slot.nope}}' } } : {}),
      })).windows,
      timezone: 'Mars/Base',
      extra: 1,
    };
    const text = stringify(doc);
    const preview = previewSchedule({ yaml: text, now: NOW });
    const deploy = parseScheduleYaml(text);
    expect(preview.ok).toBe(false);
    expect(deploy.ok).toBe(false);
    if (deploy.ok) return;
    expect(issueKeys(preview.issues)).toEqual(issueKeys(deploy.issues));
    // the duplicate id across two parts is among them, with its line
    expect(preview.issues.map((i) => i.text)).toContainEqual(
      expect.stringMatching(/^line \d+: windows\[25\]\.id: duplicate window id "w3" \(also windows\[3\]\)$/),
    );

    const fromModel = previewSchedule({ model: doc, now: NOW });
    const modelDeploy = parseScheduleObject(doc);
    if (modelDeploy.ok) throw new Error('the model should not validate');
    expect(issueKeys(fromModel.issues)).toEqual(issueKeys(modelDeploy.issues));
  });

  it('reports a YAML syntax error in a later window at its line in the whole text', () => {
    const lines = stringify({ windows: document(30).windows }).split('\n');
    const at = lines.indexOf('  - id: w25') + 2;
    lines[at] = '    cron: "0 6 * * *';
    const text = lines.join('\n');
    const deploy = parseScheduleYaml(text);
    const preview = previewSchedule({ yaml: text, now: NOW });
    expect(deploy.ok).toBe(false);
    expect(preview.ok).toBe(false);
    if (deploy.ok) return;
    expect(deploy.issues[0].message).toMatch(/^YAML syntax/);
    expect(preview.issues.map((i) => i.line)).toContain(deploy.issues[0].line);
    // as from a deploy's parse, no model of a text that does not read: the list would lose the window
    expect(deploy.raw).toBeUndefined();
    expect(preview.model).toBeUndefined();
  });

  it('keeps the lines of what follows the list, when windows were left out between', () => {
    const windows = stringify({ windows: document(60).windows });
    const text = `schedule_id: studio\n${windows}timezone: Nowhere/Zone\n`;
    const line = text.split('\n').indexOf('timezone: Nowhere/Zone') + 1;
    const preview = previewSchedule({ yaml: text, now: NOW });
    expect(preview.ok).toBe(false);
    expect(preview.issues).toEqual([expect.objectContaining({ line, path: 'timezone' })]);
    expect(preview.omitted).toMatchObject({ windows: 10 });
  });

  it('reads a zone given after the list for every window', () => {
    const windows = stringify({ windows: document(25).windows.map(({ channel: _c, ...w }) => w) });
    const preview = previewSchedule({ yaml: `${windows}timezone: Europe/Paris\n`, now: NOW });
    expect(preview.ok).toBe(true);
    expect(preview.windows.map((w) => w.timezone)).toEqual(Array(25).fill('Europe/Paris'));
    expect(preview.model).toEqual(expect.objectContaining({ timezone: 'Europe/Paris' }));
    expect((preview.model as { windows: unknown[] }).windows).toHaveLength(25);
  });

  it('lists at most the cap of next starts, and counts the rest', () => {
    const preview = previewSchedule({ yaml: stringify(document(50)), count: 20, now: NOW });
    const listed = preview.windows.reduce((n, w) => n + w.next.length, 0);
    expect(listed).toBe(PREVIEW_LIMITS.occurrences);
    expect(preview.omitted?.occurrences).toBe(50 * 20 - PREVIEW_LIMITS.occurrences);
    expect(preview.windows[0].next).toHaveLength(20);
    expect(preview.windows.at(-1)?.next).toEqual([]);
  });

  it('keeps the answer within its size by listing fewer windows, and says so', () => {
    const long = 'x'.repeat(30_000);
    const preview = previewSchedule({ yaml: stringify(document(10, () => ({ name: long }))), now: NOW });
    expect(preview.ok).toBe(true);
    expect(jsonBytes(preview)).toBeLessThanOrEqual(PREVIEW_LIMITS.bytes);
    expect(preview.model).toBeUndefined();
    expect(preview.omitted?.echo).toBe(true);
    expect(preview.omitted?.listed).toBe(10 - preview.windows.length);
    expect(preview.windows.length).toBeGreaterThan(0);
  });

  it('lists at most the cap of issues, and counts the rest', () => {
    const text = stringify(document(30, () => ({ cron: 'every day' })));
    const preview = previewSchedule({ yaml: text }, { issues: 10 });
    expect(preview.issues).toHaveLength(10);
    expect(preview.omitted?.issues).toBe(20);
  });

  it('refuses to read a huge document it cannot cut into windows, rather than holding the runtime', () => {
    const flow = JSON.stringify(document(1000)); // JSON is YAML: a flow list, not cut by lines
    const preview = previewSchedule({ yaml: flow });
    expect(preview.ok).toBe(false);
    expect(preview.issues[0].text).toMatch(/too large to preview here.*checked when deployed/);
    // a small one in flow style is read whole, as before
    expect(previewSchedule({ yaml: JSON.stringify(document(3)), now: NOW }).windows).toHaveLength(3);
  });

  it('reads a text with anchors whole, so that an alias to another window still resolves', () => {
    const lines = ['windows:'];
    for (let i = 0; i < 15; i++) {
      lines.push(`  - id: w${i}`, '    cron: "0 6 * * *"', `    duration: ${i === 0 ? '&d 1h' : '*d'}`);
    }
    const preview = previewSchedule({ yaml: `${lines.join('\n')}\n`, now: NOW });
    expect(preview.ok).toBe(true);
    expect(preview.windows.map((w) => w.duration)).toEqual(Array(15).fill('1h'));
  });

  it('answers the same when it gives the event loop turns, and gives them', async () => {
    const request = { yaml: stringify(document(2000)), now: NOW };
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    let preview: PreviewResponse;
    try {
      // a slice of 0 ms: a turn after every step
      preview = await previewScheduleAsync(request, {}, 0);
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
    expect(preview).toEqual(previewSchedule(request));
  });

  it('does nothing in the turn it is asked in: the request body was parsed there', async () => {
    let read = false;
    const request = {
      get yaml() {
        read = true;
        return 'windows: []\n';
      },
    };
    const answer = previewScheduleAsync(request, {}, 60_000);
    expect(read).toBe(false);
    expect((await answer).ok).toBe(true);
    expect(read).toBe(true);
  });

  it('lets a timer that waited for the body parse run before it starts, when asked for in an I/O callback', async () => {
    const order: string[] = [];
    const request = {
      get yaml() {
        if (!order.includes('preview reads the request')) order.push('preview reads the request');
        return 'windows: []\n';
      },
    };
    // as the route: in the poll phase, right after a parse that held the loop past a timer's instant
    let answer: Promise<PreviewResponse> | undefined;
    await new Promise<void>((resolve) => {
      stat('.', () => {
        setTimeout(() => order.push('timer'), 1);
        const until = performance.now() + 5;
        while (performance.now() < until) {
          // the body parse
        }
        answer = previewScheduleAsync(request, {}, 60_000);
        resolve();
      });
    });
    expect((await answer)?.ok).toBe(true);
    expect(order).toEqual(['timer', 'preview reads the request']);
  });
});

describe('the windows of a YAML text, by lines', () => {
  it('finds each item of the top-level block list and where the list ends', () => {
    const text = [
      'schedule_id: a',
      'windows:',
      '# a comment',
      '- id: one',
      '  cron: "0 6 * * *"',
      '  channel:',
      '    tags:',
      '      - news',
      '',
      '- id: two',
      '  duration: |',
      '    - not an item',
      'timezone: UTC',
    ].join('\n');
    expect(scan(text)).toEqual({
      items: [
        { at: text.indexOf('- id: one'), line: 4 },
        { at: text.indexOf('- id: two'), line: 10 },
      ],
      endAt: text.indexOf('timezone'),
      endLine: 13,
    });
  });

  it('finds nothing in a flow list or without a windows list', () => {
    expect(scan('windows: [{id: a}]\n')).toBeUndefined();
    expect(scan('timezone: UTC\n')).toBeUndefined();
    expect(scan('"windows":\n  - id: a\n')).toBeUndefined();
  });
});
