import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../../reliability/support-restart/node-red';

/**
 * The sidebar plugin registered 200 times in one process (a host that loads
 * the plugin again on each redeploy, or a second runtime), each round
 * publishing a slot's life and a request, scraping the metrics and reading
 * the as-run day: each event is counted once, nothing raises "already
 * registered", and the heap after a full GC stays flat. Runs the compiled
 * plugin in a fresh `node --expose-gc` process.
 */
const SCRIPT = `
const register = require('./dist/nodes/sidebar/media-spaces-sidebar.js');
const { slotTransitions } = require('./dist/lib/schedule/slot-events.js');
const { requestEvents } = require('./dist/lib/request-events.js');
const { metrics } = require('./dist/lib/metrics/slot-metrics.js');
const userDir = process.argv[1];
const routes = new Map();
function fakeRed() {
  return {
    settings: { userDir },
    nodes: { getNode: () => null, eachNode: () => undefined },
    httpAdmin: { get: (p, ...h) => routes.set('GET ' + p, h.at(-1)), post: (p, ...h) => routes.set('POST ' + p, h.at(-1)) },
    events: { on: () => undefined },
    plugins: { registerPlugin: () => undefined },
  };
}
function call(route, query = {}) {
  return new Promise((resolve) => {
    const res = { status() { return res; }, set() { return res; }, send: resolve, json: resolve };
    routes.get(route)({ query }, res, () => undefined);
  });
}
// today's date, not a literal: the as-run log is read by the day its lines were written on
const day = new Date().toISOString().slice(0, 10);
const start = day + 'T00:00:00Z', end = day + 'T00:01:00Z';
const base = { slot: 's:w:' + start, schedule: { id: 's', name: 'S' }, window: { id: 'w', zone: 'UTC' },
  occurrence: { id: 'o', start, end }, scheduled: { start, end }, at: start };
function heap() { global.gc(); global.gc(); return process.memoryUsage().heapUsed; }
(async () => {
  let at20 = 0;
  for (let i = 1; i <= 200; i++) {
    register(fakeRed());
    slotTransitions.publish({ ...base, from: 'planned', to: 'starting' });
    slotTransitions.publish({ ...base, from: 'starting', to: 'missed', why: 'round ' + i });
    requestEvents.publish({ operation: 'Get job', method: 'GET', status: 200, duration: 1, attempt: 1 });
    await call('GET /media-spaces/metrics');
    if (i % 50 === 0) await call('GET /media-spaces/as-run', { day, zone: 'UTC' });
    if (i === 20) at20 = heap();
  }
  const text = await call('GET /media-spaces/metrics');
  const asRun = await call('GET /media-spaces/as-run', { day, zone: 'UTC' });
  const missed = /media_spaces_slots_total\\{schedule="s",window="w",outcome="missed"\\} (\\d+)/.exec(text)[1];
  const requests = /media_spaces_requests_total\\{operation="get_job",status_class="2xx"\\} (\\d+)/.exec(text)[1];
  console.log(JSON.stringify({ missed: Number(missed), requests: Number(requests), records: asRun.records.length,
    reason: asRun.records[0].reason, growth: heap() - at20, size: metrics().size,
    lines: require('fs').readFileSync(require('path').join(userDir, 'media-spaces-as-run', 'as-run-' + day + '.jsonl'), 'utf8').trim().split('\\n').length }));
})();
`;

describe('monitoring over 200 registrations of the sidebar plugin', () => {
  it('counts each event once and keeps the heap flat', () => {
    const userDir = mkdtempSync(path.join(tmpdir(), 'ms-monitoring-'));
    try {
      const run = spawnSync(process.execPath, ['--expose-gc', '-e', SCRIPT, userDir], { cwd: ROOT, encoding: 'utf8' });
      expect(run.stderr).toBe('');
      const result = JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '{}');
      expect(result).toMatchObject({ missed: 200, requests: 200, records: 1, reason: 'round 200' });
      // the recorder subscribed once, not once per registration: two lines a round
      expect(result.lines).toBe(400);
      expect(result.size).toEqual({ windows: 1, slots: 1, requests: 1, feeds: 0 });
      // GC noise is some hundreds of kilobytes either way (1000 rounds measured: -25 KB to +700 KB, not growing with the rounds)
      expect(result.growth).toBeLessThan(1024 * 1024);
      console.log(`heap growth over 180 registrations: ${result.growth} bytes`);
    } finally {
      rmSync(userDir, { recursive: true, force: true });
    }
  });
});
