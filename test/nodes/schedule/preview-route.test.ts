import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { PREVIEW_LIMITS, type PreviewResponse } from '../../../lib/schedule/preview';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime } from '../../support/node-red-runtime';

/**
 * The editor's preview route of the schedule node, in a real Node-RED runtime
 * (dist/, `npm run build` first): any viewer may send any document, so the
 * answer is bounded and says what it left out.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const TAB = { id: 'tab', type: 'tab', label: 'preview' };

/** `n` windows starting daily, each with a channel template. */
function document(n: number) {
  const windows = [];
  for (let i = 0; i < n; i++) {
    windows.push({
      id: `w${i}`,
      name: `Programme ${i}`,
      cron: `${i % 60} ${Math.floor(i / 60) % 24} * * *`,
      duration: '30m',
      channel: { name: 'Recording {{window.id}} {{slot.local_start}}' },
    });
  }
  return { schedule_id: 'big', timezone: 'Europe/London', windows };
}

beforeAll(() => {
  initRuntime();
});

afterEach(async () => {
  await helper.unload();
});

describe('POST /media-spaces/schedule/preview', () => {
  it('answers a document of 20,000 windows with its first windows and a count of the rest', async () => {
    await helper.load([scheduleNode], [TAB]);
    const res = await helper
      .request()
      .post('/media-spaces/schedule/preview')
      .send({ yaml: stringify(document(20_000)), count: 5 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      ok: true,
      total_windows: 20_000,
      omitted: { windows: 20_000 - PREVIEW_LIMITS.windows, listed: 0, occurrences: 0, issues: 0, echo: true },
      limits: PREVIEW_LIMITS,
    });
    const body = res.body as PreviewResponse;
    expect(body.windows).toHaveLength(PREVIEW_LIMITS.windows);
    expect(body.windows[0]).toMatchObject({ id: 'w0', description: 'every day at 00:00' });
    expect(body.windows[0].next).toHaveLength(5);
    expect(body.model).toBeUndefined();
    expect(Buffer.byteLength(res.text)).toBeLessThanOrEqual(PREVIEW_LIMITS.bytes);
  });

  it('does the same for the editor list model', async () => {
    await helper.load([scheduleNode], [TAB]);
    const res = await helper
      .request()
      .post('/media-spaces/schedule/preview')
      .send({ model: document(20_000), count: 5 });
    expect(res.status).toBe(200);
    const body = res.body as PreviewResponse;
    expect(body).toMatchObject({ ok: true, total_windows: 20_000, omitted: { echo: true } });
    expect(body.windows).toHaveLength(PREVIEW_LIMITS.windows);
    expect(body.yaml).toBeUndefined();
  });

  it('answers the editor, which sends the first windows of a long list and its length, as for the whole list', async () => {
    await helper.load([scheduleNode], [TAB]);
    const whole = await helper
      .request()
      .post('/media-spaces/schedule/preview')
      .send({ model: document(20_000) });
    const first = { ...document(20_000), windows: document(PREVIEW_LIMITS.windows).windows };
    const sent = await helper.request().post('/media-spaces/schedule/preview').send({ model: first, total: 20_000 });
    expect(sent.status).toBe(200);
    const body = sent.body as PreviewResponse;
    expect(body).toMatchObject({ ok: true, total_windows: 20_000, omitted: { windows: 19_950, echo: true } });
    // the next starts are of "now": the two answers match but for the instant they were asked
    const shape = (r: PreviewResponse) => ({ ...r, windows: r.windows.map((w) => ({ ...w, next: w.next.length })) });
    expect(shape(body)).toEqual(shape(whole.body as PreviewResponse));
    expect(Buffer.byteLength(JSON.stringify(first))).toBeLessThan(10_000);
  });
});
