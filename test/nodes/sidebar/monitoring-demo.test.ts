import { readdirSync, readFileSync, readFileSync as readText } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AsRunRecord } from '../../../lib/asrun';
import { httpJson, waitFor } from '../../reliability/support-restart/node-red';
import { DEMO_SCHEDULE, DEMO_WINDOW, type DemoProcess, startDemoProcess } from '../../support/demo-process';
import { PROMETHEUS_DOCS, PrometheusServer } from '../../support/prometheus-server';
import { parseSamples } from '../../support/prometheus-text';
import { adminAuthSettings, PASSWORDS, signInBody } from './support';

/**
 * The monitoring docs followed as a user would, on the demo's own wiring:
 * Node-RED runs examples/recording-automation.json against the simulator
 * (the window every 10 s for 4 s), under adminAuth with the `tokens`
 * function copied from docs/monitoring.md and PROMETHEUS_SCRAPE_TOKEN in its
 * environment; Debian's prometheus scrapes it with docs/prometheus/ (1 s
 * intervals). A slot records; then the simulator refuses every channel
 * creation (the README's "Drill"), so the next slot records nothing. The
 * missed-slot rule is pending for its `for: 30s`, then fires, named by the
 * schedule's name; the shipped rule file is used as it is.
 */
const TOKEN = 'scrape-token-from-the-environment-8d2e';

/** docs/monitoring.md's adminAuth.tokens function, as a user copies it into settings.js. */
function tokensFromDocs(): string {
  const doc = readFileSync(join(PROMETHEUS_DOCS, '..', 'monitoring.md'), 'utf8');
  const block = /\n( {2}tokens: function \(token\) \{\n[\s\S]*?\n {2}\},)\n/.exec(doc)?.[1];
  if (!block) throw new Error('docs/monitoring.md no longer shows adminAuth.tokens');
  return block;
}

describe('Prometheus scraping the demo wiring, as docs/monitoring.md says', () => {
  let demo: DemoProcess;
  let prometheus: PrometheusServer | undefined;

  beforeAll(async () => {
    const settings = adminAuthSettings().replace("type: 'credentials',", `type: 'credentials',\n  ${tokensFromDocs()}`);
    demo = await startDemoProcess({
      name: 'prometheus',
      cron: '*/10 * * * * *',
      durationS: 4,
      settings,
      env: { PROMETHEUS_SCRAPE_TOKEN: TOKEN },
    });
  }, 90_000);

  afterAll(async () => {
    await prometheus?.stop();
    await demo?.close();
  });

  const L = { schedule: DEMO_SCHEDULE, window: DEMO_WINDOW };
  const scrape = async () => {
    const res = await fetch(`${demo.red.url}/media-spaces/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(200);
    return parseSamples(await res.text());
  };
  // undefined until the schedule has told of its window
  const count = async (outcome: string) =>
    (await scrape()).find(
      (s) =>
        s.name === 'media_spaces_slots_total' &&
        s.labels.schedule === L.schedule &&
        s.labels.window === L.window &&
        s.labels.outcome === outcome,
    )?.value;

  it('a recorded slot and a missed one: counts and a lateness sample in PromQL, the missed-slot alert firing', async () => {
    const scrape = async () => {
      const res = await fetch(`${demo.red.url}/media-spaces/metrics`, {
        headers: { authorization: `Bearer ${TOKEN}` },
      });
      expect(res.status).toBe(200);
      return parseSamples(await res.text());
    };
    expect((await fetch(`${demo.red.url}/media-spaces/metrics`)).status).toBe(401);
    const L = { schedule: DEMO_SCHEDULE, window: DEMO_WINDOW };
    // undefined until the schedule has told of its window
    const count = async (outcome: string) =>
      (await scrape()).find(
        (s) =>
          s.name === 'media_spaces_slots_total' &&
          s.labels.schedule === L.schedule &&
          s.labels.window === L.window &&
          s.labels.outcome === outcome,
      )?.value;
    // the window's series exist at 0 once the schedule has planned it: Prometheus sees the count rise from 0
    await waitFor(async () => (await count('missed')) === 0, 'the planned window', { timeoutMs: 20_000 });
    prometheus = await PrometheusServer.start(join(demo.userDir, 'prometheus'), `127.0.0.1:${demo.red.port}`, TOKEN);
    const p = prometheus;
    await waitFor(async () => (await p.query('media_spaces_slots_total')).length > 0, 'the first scrape', {
      timeoutMs: 30_000,
    });

    await waitFor(async () => ((await count('recorded')) ?? 0) >= 1, 'a recorded slot', { timeoutMs: 40_000 });
    // every channel creation refused until removed: the next slot is tried until its end, then missed
    expect(
      (await demo.admin('/faults', { route: 'create_channel', kind: 'status', status: 503, retry_after: 1 })).status,
    ).toBe(201);
    await waitFor(async () => ((await count('missed')) ?? 0) >= 1, 'a missed slot', { timeoutMs: 40_000 });
    expect((await demo.admin('/faults', undefined, 'DELETE')).status).toBeLessThan(300);

    const firing = await waitFor(
      async () =>
        (await p.alerts()).find((a) => a.labels.alertname === 'MediaSpacesSlotMissed' && a.state === 'firing'),
      'the missed-slot alert firing',
      { timeoutMs: 75_000 },
    );
    expect(firing.labels).toMatchObject({ ...L, outcome: 'missed', severity: 'page' });
    // the schedule node's name in examples/recording-automation.json, joined in from media_spaces_schedule_info
    expect(firing.labels.schedule_name).toBe('Every minute');
    const values = async (expr: string) => (await p.query(expr)).map((r) => r.value);
    const recorded = await values(`media_spaces_slots_total{outcome="recorded",schedule="${DEMO_SCHEDULE}"}`);
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toBeGreaterThanOrEqual(1);
    expect(await values(`media_spaces_slots_total{outcome="missed",schedule="${DEMO_SCHEDULE}"}`)).toEqual([1]);
    // each slot that started recording is one sample of the lateness histogram: the recorded ones, and the
    // one recording at that scrape if any (the demo goes on through the alert's 30 s pending phase)
    const started = await values(
      `media_spaces_slot_start_lateness_seconds_count{schedule="${DEMO_SCHEDULE}"} - ignoring(outcome) media_spaces_slots_total{outcome="recorded",schedule="${DEMO_SCHEDULE}"}`,
    );
    expect(started).toHaveLength(1);
    expect([0, 1]).toContain(started[0]);
    const sum = await values(`media_spaces_slot_start_lateness_seconds_sum{schedule="${DEMO_SCHEDULE}"}`);
    expect(sum[0]).toBeGreaterThanOrEqual(0);
    expect((await p.targets()).map((t) => [t.health, t.lastError])).toEqual([['up', '']]);
    expect(demo.red.output()).not.toMatch(/already (been )?registered/i);
  }, 200_000);

  it('ten redeploys and a restart: nothing registered twice, counts go on across redeploys, start again from 0 after the restart without the ends the schedule replays', async () => {
    const signIn = await httpJson(`${demo.red.url}/auth/token`, {
      method: 'POST',
      body: signInBody('admin', PASSWORDS.admin),
    });
    const admin = (signIn.json as { access_token: string }).access_token;
    const flows = (await httpJson(`${demo.red.url}/flows`, { token: admin })).json;
    const before = (await count('recorded')) ?? 0;
    for (let i = 0; i < 10; i++) {
      const r = await httpJson(`${demo.red.url}/flows`, {
        method: 'POST',
        body: flows,
        token: admin,
        headers: { 'node-red-deployment-type': 'full' },
      });
      expect(r.status).toBe(204);
    }
    expect((await count('recorded')) ?? 0).toBeGreaterThanOrEqual(before);
    expect((await count('missed')) ?? 0).toBe(1);
    const first = demo.red;
    await demo.restart();
    const restartedAt = first.lines().at(-1)?.at ?? Date.now();
    const day = new Date().toISOString().slice(0, 10);
    const records = async () =>
      (
        (await httpJson(`${demo.red.url}/media-spaces/as-run?day=${day}&zone=UTC`, { token: admin })).json as {
          records: AsRunRecord[];
        }
      ).records;
    const dir = join(demo.userDir, 'media-spaces-as-run');
    /** the slots whose finish this process logged: a slot the restart cut off in its end is finished again here */
    const finishedHere = () =>
      new Set(
        readdirSync(dir)
          .flatMap((f) => readText(join(dir, f), 'utf8').trim().split('\n'))
          .flatMap((l) => {
            try {
              return [JSON.parse(l) as { kind: string; event: { slot: string; to: string; at: string } }];
            } catch {
              return []; // a line being written
            }
          })
          .filter((e) => e.kind === 'slot' && e.event.to === 'finished' && Date.parse(e.event.at) >= restartedAt)
          .map((e) => e.event.slot),
      );
    const endedSince = (rs: AsRunRecord[]) => {
      const here = finishedHere();
      return rs.filter((r) => r.outcome === 'recorded' && here.has(r.slot)).length;
    };
    // the counter after the restart: the slots ended since, read between two reads of the log that agree
    const settled = await waitFor(
      async () => {
        const a = endedSince(await records());
        const counted = await count('recorded');
        const b = endedSince(await records());
        return a === b && a >= 1 && counted !== undefined ? { a, counted } : undefined;
      },
      'a slot recorded after the restart',
      { timeoutMs: 40_000, intervalMs: 500 },
    );
    expect(settled.counted).toBe(settled.a);
    expect(await count('missed')).toBe(0);
    // the restarted schedule replays the ends of slots that ended before (the same messages), but tells no
    // transition again: the log has each slot's finish once
    const told = readdirSync(dir)
      .flatMap((f) => readText(join(dir, f), 'utf8').trim().split('\n'))
      .map((l) => JSON.parse(l) as { kind: string; event: { slot: string; to: string; at: string } })
      .filter((e) => e.kind === 'slot' && e.event.to === 'finished');
    const endedBefore = new Set(told.filter((e) => Date.parse(e.event.at) < restartedAt).map((e) => e.event.slot));
    expect(endedBefore.size).toBeGreaterThan(0);
    expect(told.filter((e) => Date.parse(e.event.at) >= restartedAt && endedBefore.has(e.event.slot))).toEqual([]);
    // the log kept every slot across the restart, each once
    const all = await records();
    expect(new Set(all.map((r) => r.slot)).size).toBe(all.length);
    expect(all.filter((r) => r.outcome === 'missed')).toHaveLength(1);
    for (const red of [first, demo.red]) expect(red.output()).not.toMatch(/already (been )?registered/i);
  }, 120_000);
});
