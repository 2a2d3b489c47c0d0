import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NODE_TYPES, nodeEntry, ROOT } from '../support/node-modules';

/**
 * Node-RED loads every installed package at start, even when no flow uses
 * it. What a node file loads there is checked by name, in a
 * fresh process per case: timings are left to `npm run bench`.
 */

const HEAVY = ['zod', 'yaml', 'node-cron', 'undici', '@redis/client', 'prom-client', 'csv-stringify'];
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  'node-red': { plugins: Record<string, string> };
};
const PLUGINS = Object.keys(pkg['node-red'].plugins);
const ENTRIES = [...NODE_TYPES.map(nodeEntry), ...Object.values(pkg['node-red'].plugins)];

interface Probe {
  types: string[];
  plugins: string[];
  routes: string[];
  atStart: string[];
  afterDeploy: string[];
  /** this package's modules (dist/…) loaded right after the deploy, and `waitMs` later */
  ownAfterDeploy: string[];
  later?: string[];
  beforeScrape?: string[];
  afterScrape?: string[];
  deployErrors: string[];
}

function probe(
  files: string[],
  deploy: { type: string; def: Record<string, unknown> }[] = [],
  waitMs = 0,
  scrape = false,
): Probe {
  const run = spawnSync(
    process.execPath,
    [join(ROOT, 'test/support/cold-load-probe.cjs'), JSON.stringify({ files, deploy, waitMs, scrape })],
    {
      cwd: ROOT,
      encoding: 'utf8',
    },
  );
  if (run.status !== 0) throw new Error(`cold-load probe failed: ${run.stderr}`);
  return JSON.parse(run.stdout.trim().split('\n').at(-1) ?? '') as Probe;
}

describe('cold load: what registering the package loads', () => {
  it('registers every node type, the sidebar plugin and the admin routes without loading any dependency', () => {
    const result = probe(ENTRIES);
    expect(result.types).toEqual(NODE_TYPES);
    expect(result.plugins).toEqual(PLUGINS);
    expect(result.routes).toEqual(
      expect.arrayContaining([
        'POST /media-spaces/test-connection',
        'GET /media-spaces/workflows',
        'GET /media-spaces/schedule/preview',
        'GET /media-spaces/activity',
        'GET /media-spaces/metrics',
        'GET /media-spaces/as-run',
      ]),
    );
    expect(result.atStart).toEqual([]);
  });

  it.each(ENTRIES)(
    '%s alone loads none of zod, yaml, node-cron, undici, @redis/client, prom-client, csv-stringify',
    (entry) => {
      const loaded = probe([entry]).atStart;
      for (const name of HEAVY) expect(loaded).not.toContain(name);
    },
  );

  it('a deployed submit-job node loads zod for its settings, but neither yaml, node-cron, undici nor redis', () => {
    const result = probe(ENTRIES, [{ type: 'media-spaces-submit-job', def: { id: 'submit', server: 'config' } }]);
    expect(result.deployErrors).toEqual([]);
    expect(result.afterDeploy).toContain('zod');
    for (const name of ['yaml', 'node-cron', 'undici', '@redis/client']) expect(result.afterDeploy).not.toContain(name);
  });

  it('yaml and node-cron load when a schedule node is deployed', () => {
    const result = probe(ENTRIES, [{ type: 'media-spaces-schedule', def: { id: 'schedule' } }]);
    expect(result.deployErrors).toEqual([]);
    expect(result.afterDeploy).toEqual(expect.arrayContaining(['yaml', 'node-cron']));
    expect(result.afterDeploy).not.toContain('@redis/client');
  });

  it('re2js, the engine of match patterns, loads with the first pattern, not with a schedule without one', () => {
    expect(probe(ENTRIES).atStart).not.toContain('re2js');
    const result = probe(ENTRIES, [{ type: 'media-spaces-schedule', def: { id: 'schedule' } }]);
    expect(result.afterDeploy).not.toContain('re2js');
  });

  it('a deployed schedule starts monitoring (metrics, as-run log) a second later, not with its first slot', () => {
    const runtime = 'dist/nodes/sidebar/monitoring-runtime.js';
    expect(probe(ENTRIES).ownAfterDeploy).not.toContain(runtime);
    const result = probe(ENTRIES, [{ type: 'media-spaces-schedule', def: { id: 'schedule' } }], 1500);
    expect(result.deployErrors).toEqual([]);
    expect(result.ownAfterDeploy).not.toContain(runtime);
    expect(result.later).toContain(runtime);
    // a runtime without a schedule does not load it
    const other = probe(ENTRIES, [{ type: 'media-spaces-submit-job', def: { id: 'submit', server: 'config' } }], 1500);
    expect(other.later).not.toContain(runtime);
  });

  it('prom-client loads at the first scrape of the metrics, not with monitoring', () => {
    expect(probe(ENTRIES).atStart).not.toContain('prom-client');
    // monitoring started a second after a schedule's deploy: the metrics count, prom-client is not loaded
    const result = probe(ENTRIES, [{ type: 'media-spaces-schedule', def: { id: 'schedule' } }], 1500, true);
    expect(result.deployErrors).toEqual([]);
    expect(result.later).toContain('dist/lib/metrics/slot-metrics.js');
    expect(result.beforeScrape).not.toContain('prom-client');
    expect(result.afterScrape).toContain('prom-client');
  });
});
