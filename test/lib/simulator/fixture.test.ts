import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { TYPECODES } from '../../../lib/schemas';
import {
  DEMO_FIXTURE_PATH,
  type FixtureDocument,
  FixtureError,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  formatTimeSpan,
  loadFixture,
  parseFixture,
  startSimulator,
} from '../../../lib/simulator';

const TMP = path.join(__dirname, '..', '..', '.tmp', 'simulator-fixture');
mkdirSync(TMP, { recursive: true });

const MAIN = '11111111-1111-4111-8111-111111111111';

function fixtureIssues(doc: unknown): string[] {
  try {
    parseFixture(doc);
  } catch (err) {
    expect(err).toBeInstanceOf(FixtureError);
    return (err as FixtureError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error('the fixture was accepted');
}

describe('the demo fixture', () => {
  const demo = loadFixture();
  const main = demo.spaces.find((s) => s.space_id === MAIN)!;
  const active = main.workflows.filter((w) => w.status === 'active');
  const needsNothing = (w: (typeof active)[number]) =>
    w.inputs.variables.every((v) => v.default !== undefined) &&
    w.inputs.media_nicknames.length + w.inputs.attachments.length + w.inputs.labels.length === 0;

  it('sits next to the code and holds three spaces, one inactive, hundreds of workflows', () => {
    expect(DEMO_FIXTURE_PATH).toBe(path.join(__dirname, '..', '..', '..', 'lib', 'simulator', 'fixtures', 'demo.yaml'));
    expect(demo.spaces).toHaveLength(3);
    expect(demo.spaces.map((s) => s.subscription).sort()).toEqual(['active', 'active', 'inactive']);
    const total = demo.spaces.reduce((n, s) => n + s.workflows.length, 0);
    expect(total).toBeGreaterThanOrEqual(300);
  });

  it('has all four statuses, active workflows needing no inputs, and short demo jobs', () => {
    expect(new Set(main.workflows.map((w) => w.status))).toEqual(new Set(['active', 'archived', 'deleted', 'idle']));
    const names = active.filter(needsNothing).map((w) => w.name);
    expect(names).toEqual(expect.arrayContaining(['Transcode to H.264 proxy', 'QC check', 'Archive to LTO']));
    for (const w of main.workflows) expect(w.job_duration_ms).toBeLessThanOrEqual(10_000);
  });

  it('has active workflows needing each kind of input, variables of every typecode, bounded parameters', () => {
    const required = active.filter((w) => !needsNothing(w));
    expect(required.some((w) => w.inputs.media_nicknames.length > 0)).toBe(true);
    expect(required.some((w) => w.inputs.attachments.length > 0)).toBe(true);
    expect(required.some((w) => w.inputs.labels.length > 0)).toBe(true);
    const typecodes = new Set(active.flatMap((w) => w.inputs.variables.map((v) => v.typecode)));
    expect([...typecodes].sort()).toEqual([...TYPECODES].sort());
    const params = active.flatMap((w) => w.inputs.labels.flatMap((l) => l.parameters));
    expect(params.some((p) => p.minimum_value !== undefined && p.maximum_value !== undefined)).toBe(true);
    expect(params.some((p) => p.increment_value !== undefined)).toBe(true);
    expect(params.some((p) => p.options !== undefined)).toBe(true);
  });

  it('is the default of startSimulator, whose info() has exactly the CLI --json shape', async () => {
    const sim = await startSimulator();
    try {
      const info = sim.info();
      expect(Object.keys(info)).toEqual([
        'workflow_url',
        'livecapture_url',
        'admin_url',
        'authorization_url',
        'spaces',
      ]);
      expect(info.workflow_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect(info.livecapture_url).toBe(info.workflow_url);
      expect(info.admin_url).toBe(`${info.workflow_url}/__admin`);
      expect(info.authorization_url).toBe(`${info.workflow_url}/auth/oauth2`);
      expect(info.spaces[0]).toEqual({
        space_id: MAIN,
        subscription: 'active',
        api_keys: { admin: 'demo-admin-key', management: 'demo-management-key', access: 'demo-access-key' },
        access_token: 'demo-live-token',
      });
      expect(info.spaces[2].subscription).toBe('inactive');
      const res = await fetch(`${sim.workflowUrl}/workflow/v1/${MAIN}/workflows?status=active`, {
        headers: { authorization: 'Bearer demo-access-key' },
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { workflows: unknown[] }).workflows.length).toBe(50);
    } finally {
      await sim.close();
    }
  });
});

describe('the demo fixture over HTTP', () => {
  const wf = (n: string) => `aaaaaaaa-0000-4000-8000-0000000000${n}`;
  const submissions: [string, string, Record<string, unknown>][] = [
    [wf('01'), 'Transcode to H.264 proxy', {}],
    [
      wf('10'),
      'Render with burn-in timecode',
      {
        variables: [
          { name: 'Title', typecode: 'String', value: 'Evening news' },
          { name: 'SourceUri', typecode: 'Uri', value: 's3://media/in/news.mxf' },
          { name: 'VideoBitrateKbps', typecode: 'Int32', value: '8000' },
        ],
      },
    ],
    [
      wf('11'),
      'Conform with watermark',
      {
        media_nicknames: [
          { identifier: 'source', files: ['s3://m/a.mxf'] },
          { identifier: 'watermark', files: ['s3://m/w.png'] },
        ],
      },
    ],
    [
      wf('12'),
      'Deliver with subtitles',
      {
        attachments: [
          { identifier: 'subtitles', file: 's3://m/a.srt' },
          { identifier: 'cue_sheet', file: 's3://m/c.pdf' },
        ],
      },
    ],
    [
      wf('13'),
      'Loudness normalisation',
      {
        labels: [
          { identifier: 'loudness' },
          { identifier: 'delivery', parameters: [{ name: 'Channels', typecode: 'Byte', value: '2' }] },
        ],
      },
    ],
  ];

  it('accepts a complete submission to each demo workflow and refuses an empty one where inputs are needed', async () => {
    const sim = await startSimulator({ manualClock: true });
    const submit = (id: string, input: Record<string, unknown>) =>
      fetch(`${sim.workflowUrl}/workflow/v1/${MAIN}/workflows/${id}/jobs`, {
        method: 'POST',
        headers: { authorization: 'Bearer demo-management-key', 'content-type': 'application/json' },
        body: JSON.stringify({ usage: { input } }),
      });
    try {
      for (const [id, name, input] of submissions) {
        const res = await submit(id, input);
        expect(res.status, name).toBe(200);
        expect(((await res.json()) as { workflow_name: string }).workflow_name).toBe(name);
        if (Object.keys(input).length > 0) expect((await submit(id, {})).status, name).toBe(422);
      }
      expect((await submit(wf('21'), {})).status).toBe(422);
      sim.advance(8500);
      const jobs = await fetch(`${sim.adminUrl}/spaces/${MAIN}/jobs`);
      const states = ((await jobs.json()) as { jobs: { state: string }[] }).jobs.map((j) => j.state);
      expect(states).toEqual(submissions.map(() => 'succeeded'));
    } finally {
      await sim.close();
    }
  });
});

describe('fixture validation', () => {
  it('names the path of a bad typecode, a bad UUID and an unknown key', () => {
    const issues = fixtureIssues({
      spaces: [
        {
          space_id: 'nope',
          workflows: [
            {
              id: '11111111-1111-4111-8111-111111111111',
              name: 'W',
              inputs: { variables: [{ name: 'X', typecode: 'Float' }] },
              colour: 'red',
            },
          ],
        },
      ],
    });
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^spaces\.0\.space_id: /),
        expect.stringMatching(/^spaces\.0\.workflows\.0\.inputs\.variables\.0\.typecode: /),
        expect.stringMatching(/^spaces\.0\.workflows\.0: .*colour/),
      ]),
    );
  });

  it('rejects credentials used twice, duplicate ids, and defaults that break their typecode or bounds', () => {
    const a = fixtureSpace('a', {
      workflows: [
        fixtureWorkflow('W', {
          inputs: {
            variables: [
              { name: 'N', typecode: 'Int16', default: 99999 },
              { name: 'N', typecode: 'String' },
            ],
            labels: [
              {
                name: 'L',
                identifier: 'l',
                parameters: [{ name: 'P', typecode: 'Int32', minimum_value: 1, maximum_value: 5, default_value: 9 }],
              },
            ],
          },
        }),
        fixtureWorkflow('W'),
      ],
    });
    const b = fixtureSpace('b', { api_keys: [{ key: 'a-admin-key', scope: 'workflow:access' }] });
    const issues = fixtureIssues(fixtureDocument(a, b, { ...fixtureSpace('c'), space_id: a.space_id }));
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^spaces\.1\.api_keys\.0\.key: is already used at spaces\.0\.api_keys\.0/),
        expect.stringMatching(/^spaces\.2\.space_id: duplicates spaces\.0/),
        expect.stringMatching(/^spaces\.0\.workflows\.1\.id: duplicates/),
        expect.stringMatching(/^spaces\.0\.workflows\.0\.inputs\.variables\.0\.default: must be an? Int16/),
        expect.stringMatching(/^spaces\.0\.workflows\.0\.inputs\.variables\.1: variable "N" is declared twice/),
        expect.stringMatching(
          /^spaces\.0\.workflows\.0\.inputs\.labels\.0\.parameters\.0\.default_value: must be at most 5/,
        ),
      ]),
    );
    expect(issues.join('\n')).not.toContain('a-admin-key');
  });

  it('accepts YAML numbers and booleans as text values and fills defaults', () => {
    const fixture = parseFixture(
      fixtureDocument(
        fixtureSpace('d', {
          workflows: [
            fixtureWorkflow('W', { inputs: { variables: [{ name: 'B', typecode: 'Boolean', default: true }] } }),
          ],
        }),
      ),
    );
    const w = fixture.spaces[0].workflows[0];
    expect(w.inputs.variables[0].default).toBe('true');
    expect(w).toMatchObject({ status: 'active', job_duration_ms: 10_000, outcome: 'succeeded', version: '1' });
    expect(w.updated_at).toBe(w.created_at);
  });

  it('reports a YAML syntax error and a missing file with the file name', () => {
    const bad = path.join(TMP, 'bad.yaml');
    writeFileSync(bad, 'spaces:\n  - space_id: [unclosed\n');
    expect(() => loadFixture(bad)).toThrow(/bad\.yaml[\s\S]*not valid YAML/);
    expect(() => loadFixture(path.join(TMP, 'missing.yaml'))).toThrow(/missing\.yaml[\s\S]*cannot read/);
  });

  it('loads a YAML file given by path', async () => {
    const file = path.join(TMP, 'ok.yaml');
    writeFileSync(
      file,
      [
        'spaces:',
        '  - space_id: 44444444-4444-4444-8444-444444444444',
        '    api_keys: [{ key: yaml-key, scope: "workflow:access" }]',
        '    workflows:',
        '      - { id: 55555555-5555-4555-8555-555555555555, name: From YAML, created_at: 2024-01-01T00:00:00Z }',
      ].join('\n'),
    );
    const sim = await startSimulator({ fixture: file, manualClock: true });
    try {
      const res = await fetch(`${sim.workflowUrl}/workflow/v1/44444444-4444-4444-8444-444444444444/workflows`, {
        headers: { authorization: 'Bearer yaml-key' },
      });
      expect(((await res.json()) as { workflows: unknown[] }).workflows).toEqual([
        {
          id: '55555555-5555-4555-8555-555555555555',
          name: 'From YAML',
          description: '',
          status: 'active',
          created_at: '2024-01-01T00:00:00.000Z',
          updated_at: '2024-01-01T00:00:00.000Z',
        },
      ]);
      expect(sim.info().spaces[0].api_keys).toEqual({ admin: null, management: null, access: 'yaml-key' });
      expect(sim.info().spaces[0].access_token).toBeNull();
    } finally {
      await sim.close();
    }
  });

  it('makes startSimulator reject an invalid fixture', async () => {
    await expect(startSimulator({ fixture: { spaces: [] } as FixtureDocument })).rejects.toBeInstanceOf(FixtureError);
  });
});

describe('generated workflows', () => {
  const gen = (seed: number, count = 40) =>
    parseFixture(fixtureDocument(fixtureSpace('g', { generate: { count, seed } }))).spaces[0].workflows;

  it('are deterministic for a seed and differ between seeds', () => {
    expect(gen(1)).toEqual(gen(1));
    expect(gen(2)[0].id).not.toBe(gen(1)[0].id);
  });

  it('cover all four statuses and include workflows needing no inputs', () => {
    const all = gen(3, 8);
    expect(new Set(all.map((w) => w.status))).toEqual(new Set(['active', 'idle', 'archived', 'deleted']));
    expect(gen(3, 200).some((w) => w.status === 'active' && w.inputs.variables.length === 0)).toBe(true);
    expect(new Set(gen(3, 2000).map((w) => w.id)).size).toBe(2000);
  });
});

describe('in-process API', () => {
  it('formats TimeSpans as h:mm:ss.f and d.hh:mm:ss.f', () => {
    expect(formatTimeSpan(0)).toBe('0:00:00');
    expect(formatTimeSpan(10_500)).toBe('0:00:10.5');
    expect(formatTimeSpan(3_723_250)).toBe('1:02:03.25');
    expect(formatTimeSpan(90_061_100)).toBe('1.01:01:01.1');
  });

  it('has a real clock that moves, plus advance(); a manual one that moves only by advance()', async () => {
    const real = await startSimulator({ fixture: fixtureDocument(fixtureSpace('r')) });
    const manual = await startSimulator({
      fixture: fixtureDocument(fixtureSpace('m')),
      manualClock: true,
      startTime: 0,
    });
    try {
      const t0 = real.now();
      await new Promise((r) => setTimeout(r, 25));
      expect(real.now()).toBeGreaterThanOrEqual(t0 + 20);
      real.advance(60_000);
      expect(real.now()).toBeGreaterThanOrEqual(t0 + 60_020);
      expect(manual.now()).toBe(0);
      await new Promise((r) => setTimeout(r, 10));
      expect(manual.now()).toBe(0);
      manual.advance(250);
      expect(manual.now()).toBe(250);
      expect(() => manual.advance(-1)).toThrow(RangeError);
      manual.reset();
      expect(manual.now()).toBe(0);
    } finally {
      await real.close();
      await manual.close();
    }
  });

  it('close() ends the server and its kept-alive connections; a second close is harmless', async () => {
    const sim = await startSimulator({ fixture: fixtureDocument(fixtureSpace('c')), manualClock: true });
    const url = `${sim.adminUrl}/state`;
    expect((await fetch(url)).status).toBe(200);
    await sim.close();
    await expect(fetch(url)).rejects.toThrow();
    await sim.close();
  });

  it('close() does not wait for requests held by injected latency', async () => {
    const sim = await startSimulator({ fixture: fixtureDocument(fixtureSpace('h')), manualClock: true });
    sim.addFault({ kind: 'latency', latency_ms: 60_000 });
    const held = fetch(`${sim.workflowUrl}/workflow/v1/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/workflows`);
    await new Promise((r) => setTimeout(r, 50));
    const started = performance.now();
    await sim.close();
    expect(performance.now() - started).toBeLessThan(5000);
    await expect(held).rejects.toThrow();
  });
});
