import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROMETHEUS_DOCS } from '../support/prometheus-server';

const CONFIGS = ['prometheus.yml', 'prometheus-admin-auth.yml'];
const RULES = 'media-spaces-alerts.yml';

/** `promtool check config` on a shipped config copied alone with the rules into an empty folder (and the token file when given). */
function checkConfig(config: string, token?: string): { status: number | null; output: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'ms-prom-'));
  try {
    for (const f of [config, RULES]) copyFileSync(path.join(PROMETHEUS_DOCS, f), path.join(dir, f));
    if (token !== undefined) writeFileSync(path.join(dir, 'node-red.token'), token);
    const run = spawnSync('promtool', ['check', 'config', path.join(dir, config)], { encoding: 'utf8' });
    return { status: run.status, output: run.stdout + run.stderr };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The Prometheus files docs/monitoring.md tells users to copy: Prometheus' own checker passes them as shipped. */
describe('docs/prometheus', () => {
  it('promtool check rules passes the alerting rules', () => {
    const run = spawnSync('promtool', ['check', 'rules', path.join(PROMETHEUS_DOCS, RULES)], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toContain('SUCCESS: 6 rules found');
    expect(run.status).toBe(0);
  });

  it('promtool test rules: pending then firing with schedule_name, two coordinated instances each joined to its own info series, the late start, the overrun, the event-loop lag, the clock skew', () => {
    const tests = path.join(__dirname, '..', 'fixtures', 'prometheus', 'media-spaces-alerts.test.yml');
    const run = spawnSync('promtool', ['test', 'rules', tests], { encoding: 'utf8' });
    expect(run.stdout + run.stderr).toContain('SUCCESS');
    expect(run.status).toBe(0);
  });

  it('every alert about a window carries schedule_name, and only a feed or the process alert goes without it', () => {
    const rules = readFileSync(path.join(PROMETHEUS_DOCS, RULES), 'utf8');
    const alerts = rules.split(/\n(?= {6}- alert: )/).slice(1);
    expect(alerts).toHaveLength(6);
    for (const a of alerts) {
      const name = /- alert: (\w+)/.exec(a)?.[1];
      if (a.includes('media_spaces_slot')) {
        expect(a, name).toContain('group_left(schedule_name) media_spaces_schedule_info');
        expect(a, name).toContain('{{ $labels.schedule_name }}');
      }
    }
    // the missed slot pages after a pending phase; the event-loop alert rides over a deploy's stall
    expect(/alert: MediaSpacesSlotMissed[\s\S]*?\n {8}for: 30s\n/.test(rules)).toBe(true);
    expect(/alert: MediaSpacesEventLoopLag\n {8}expr: nodered_nodejs_eventloop_lag_p99_seconds/.test(rules)).toBe(true);
  });

  it('promtool check config passes the config without adminAuth, with no token file anywhere', () => {
    const run = checkConfig('prometheus.yml');
    expect(run.output).toContain('is valid prometheus config file syntax');
    expect(run.status).toBe(0);
  });

  it('promtool check config passes the adminAuth config with its token file beside it, and names the file when it is missing', () => {
    const run = checkConfig('prometheus-admin-auth.yml', 'a-token');
    expect(run.output).toContain('is valid prometheus config file syntax');
    expect(run.status).toBe(0);
    const without = checkConfig('prometheus-admin-auth.yml');
    expect(without.status).not.toBe(0);
    expect(without.output).toContain('node-red.token');
  });

  it('both configs are the same but for the token', () => {
    const [plain, auth] = CONFIGS.map((f) =>
      readFileSync(path.join(PROMETHEUS_DOCS, f), 'utf8')
        .split('\n')
        .filter((l) => !l.startsWith('#')),
    );
    expect(auth.filter((l) => !/authorization:|type: Bearer|credentials_file:/.test(l))).toEqual(plain);
  });

  it('docs/monitoring.md shows every file as it is shipped', () => {
    const doc = readFileSync(path.join(PROMETHEUS_DOCS, '..', 'monitoring.md'), 'utf8');
    for (const f of [...CONFIGS, RULES]) {
      expect(doc).toContain(readFileSync(path.join(PROMETHEUS_DOCS, f), 'utf8').trim());
    }
  });
});
