import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Simulator, startSimulator } from '../../../lib/simulator';
import { helper, waitFor } from '../../support/node-red-runtime';
import { loadScheduleChain } from '../../support/schedule-chain';

/**
 * A schedule window reading an XMLTV guide (gzip, as guides are shipped), in a real runtime with the demo's
 * wiring: the programmes the rules match only, a repeat of an episode recorded once, and back-to-back
 * programmes each with its own channel and its full padding.
 */

const require = createRequire(import.meta.url);
let sim: Simulator;
let dir: string;

beforeAll(async () => {
  helper.init(require.resolve('node-red'));
  sim = await startSimulator();
  dir = mkdtempSync(path.join(os.tmpdir(), 'guide-windows-'));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(async () => {
  await helper.unload();
});

/** XMLTV's time: YYYYMMDDhhmmss +HHMM (here with the offset of +01:00, to read the zone rule too) */
const xmltvTime = (ms: number) => {
  const local = new Date(ms + 3600_000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
  return `${local} +0100`;
};

function guide(a: number): string {
  const programme = (channel: string, from: number, to: number, title: string, episode?: string) =>
    [
      `  <programme start="${xmltvTime(from)}" stop="${xmltvTime(to)}" channel="${channel}">`,
      `    <title lang="en">${title}</title>`,
      ...(episode ? [`    <episode-num system="xmltv_ns">${episode}</episode-num>`] : []),
      '  </programme>',
    ].join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE tv SYSTEM "xmltv.dtd">',
    '<tv generator-info-name="guide-windows test">',
    '  <channel id="one.test">',
    '    <display-name>One</display-name>',
    '  </channel>',
    '  <channel id="two.test">',
    '    <display-name>Two</display-name>',
    '  </channel>',
    programme('one.test', a, a + 3000, 'News', '0.1.0/1'),
    // the same episode again at once: recorded once
    programme('one.test', a + 3000, a + 6000, 'News', '0.1.0/1'),
    // back to back with the first: its own channel and its own padding
    programme('one.test', a + 6000, a + 9000, 'News', '0.2.0/1'),
    programme('one.test', a + 9000, a + 12_000, 'Weather'),
    programme('two.test', a, a + 3000, 'News', '0.1.0/1'),
    '</tv>',
    '',
  ].join('\n');
}

const iso = (ms: number) => new Date(ms).toISOString().replace('.000', '');

describe('a guide window', () => {
  it('records the matching programmes once each, back-to-back ones each with its full padding', {
    timeout: 60_000,
  }, async () => {
    const plain = path.join(dir, 'guide.xml');
    writeFileSync(plain, guide(Date.now()));
    const { stdout } = await promisify(execFile)('tv_validate_file', [plain], {
      env: { ...process.env, XMLTV_SUPPLEMENT: '/usr/share/xmltv' },
    });
    expect(stdout.trim()).toBe('Validated ok.');
    // the times from after the validation (seconds on a busy machine): the guide is read (in a worker) well before a
    const a = Math.ceil((Date.now() + 5000) / 1000) * 1000;
    const text = guide(a);
    const file = path.join(dir, 'guide.xml.gz');
    writeFileSync(file, gzipSync(text));

    const scheduleId = `guide-${process.pid}-${Date.now()}`;
    const seen = await loadScheduleChain(sim, {
      yaml: `windows:
  - id: news
    xmltv: ${JSON.stringify(file)}
    match: { channel: one.test, title: "^News$", duplicates: once }
    padding: { before: 1s, after: 2s }
    timezone: Europe/London
    channel: { name: "{{occurrence.title}} {{occurrence.episode}}" }
`,
      scheduleId,
    });
    await waitFor(() => seen.end.length === 2, 30_000);
    const ends = seen.end
      .map((m) => m.window as { start: string; end: string; slotKey: string })
      .sort((x, y) => x.start.localeCompare(y.start));
    expect(ends.map((w) => [w.start, w.end])).toEqual([
      [iso(a - 1000), iso(a + 5000)],
      [iso(a + 5000), iso(a + 11_000)],
    ]);
    // two channels, one per programme, though their padded times overlap
    const created = sim
      .requests()
      .filter((r) => r.route === 'create_channel' && r.idempotency_key?.startsWith(scheduleId));
    expect(new Set(created.map((r) => r.idempotency_key)).size).toBe(2);
    expect(ends[0].slotKey).toContain(':news:one.test/');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(seen.end).toHaveLength(2);
    expect(seen.caught).toEqual([]);
  });
});
