import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROMETHEUS_DOCS } from '../support/prometheus-server';

/** The Prometheus files docs/monitoring.md tells users to copy: Prometheus' own checker passes them as shipped. */
describe('docs/prometheus', () => {
  it('promtool check rules passes the alerting rules', () => {
    const run = spawnSync('promtool', ['check', 'rules', path.join(PROMETHEUS_DOCS, 'media-spaces-alerts.yml')], {
      encoding: 'utf8',
    });
    expect(run.stdout + run.stderr).toContain('SUCCESS: 4 rules found');
    expect(run.status).toBe(0);
  });

  it('promtool check config passes the scrape config (with its token file beside it)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ms-prom-'));
    try {
      for (const f of ['prometheus.yml', 'media-spaces-alerts.yml'])
        copyFileSync(path.join(PROMETHEUS_DOCS, f), path.join(dir, f));
      writeFileSync(path.join(dir, 'node-red.token'), 'a-token');
      const run = spawnSync('promtool', ['check', 'config', path.join(dir, 'prometheus.yml')], { encoding: 'utf8' });
      expect(run.stdout + run.stderr).toContain('is valid prometheus config file syntax');
      expect(run.status).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('docs/monitoring.md shows both files as they are shipped', () => {
    const doc = readFileSync(path.join(PROMETHEUS_DOCS, '..', 'monitoring.md'), 'utf8');
    for (const f of ['prometheus.yml', 'media-spaces-alerts.yml']) {
      expect(doc).toContain(readFileSync(path.join(PROMETHEUS_DOCS, f), 'utf8').trim());
    }
  });
});
