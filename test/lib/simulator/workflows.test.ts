import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  credentialsFor,
  fixtureDocument,
  fixtureSpace,
  fixtureWorkflow,
  type Simulator,
  spaceIdFor,
  startSimulator,
  workflowIdFor,
} from '../../../lib/simulator';
import { type Body, call, type RawResponse as Res } from '../../support/sim';

const MAIN = credentialsFor('main');
const OTHER = credentialsFor('other');
const LAPSED = credentialsFor('lapsed');
const MAIN_ID = spaceIdFor('main');
const GENERATED = 1234;
const EXPLICIT = ['Transcode to H.264 proxy', 'QC check', 'Render'];

let sim: Simulator;
const list = (query = '', prefix = '/workflow/v1', space = MAIN_ID) =>
  `${sim.workflowUrl}${prefix}/${space}/workflows${query}`;

beforeAll(async () => {
  sim = await startSimulator({
    manualClock: true,
    fixture: fixtureDocument(
      fixtureSpace('main', {
        workflows: [
          fixtureWorkflow(EXPLICIT[0]),
          fixtureWorkflow(EXPLICIT[1], { status: 'idle' }),
          fixtureWorkflow(EXPLICIT[2], {
            inputs: { variables: [{ name: 'Title', typecode: 'String' }], labels: [] },
          }),
        ],
        generate: { count: GENERATED, seed: 11 },
      }),
      fixtureSpace('other', { workflows: [fixtureWorkflow('Other workflow')] }),
      fixtureSpace('lapsed', { subscription: 'inactive', workflows: [fixtureWorkflow('Lapsed workflow')] }),
    ),
  });
});
afterAll(() => sim.close());

function expectProblem(res: Res, status: number, path: string, pointer?: string) {
  expect(res.status).toBe(status);
  expect(res.body).toMatchObject({ status, instance: path });
  expect(typeof res.body.title).toBe('string');
  expect(typeof res.body.type).toBe('string');
  expect(typeof res.body.detail).toBe('string');
  expect(res.body.trace_id).toMatch(/^[0-9a-f]{32}$/);
  if (pointer) {
    expect(res.body.errors).toEqual([expect.objectContaining({ pointer, type: 'invalid_value' })]);
  }
}

describe('list workflows', () => {
  it('answers on both workflow prefixes with the same page', async () => {
    const a = await call('GET', list('?max_results=5'), MAIN.access);
    const b = await call('GET', list('?max_results=5', '/workflow/api/v1'), MAIN.access);
    expect(a.status).toBe(200);
    expect(a.headers.get('content-type')).toMatch(/^application\/json/);
    expect(b.status).toBe(200);
    expect(b.body.workflows).toEqual(a.body.workflows);
    expect(a.body.workflows.map((w: Body) => w.name)).toEqual(expect.arrayContaining(EXPLICIT));
  });

  it('returns list entries with exactly the described fields', async () => {
    const res = await call('GET', list('?max_results=1'), MAIN.access);
    expect(Object.keys(res.body.workflows[0]).sort()).toEqual(
      ['created_at', 'description', 'id', 'name', 'status', 'updated_at'].sort(),
    );
    expect(res.body.workflows[0].id).toBe(workflowIdFor(EXPLICIT[0]));
    expect(res.body.workflows[0].created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('pages through 1,000+ workflows with opaque tokens, default page size 50', async () => {
    const first = await call('GET', list(), MAIN.access);
    expect(first.body.workflows).toHaveLength(50);
    expect(typeof first.body.next_page_token).toBe('string');

    const ids: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const q: string = `?max_results=100${token ? `&page_token=${encodeURIComponent(token)}` : ''}`;
      const res = await call('GET', list(q), MAIN.access);
      expect(res.status).toBe(200);
      expect(res.body.workflows.length).toBeLessThanOrEqual(100);
      ids.push(...res.body.workflows.map((w: Body) => w.id));
      token = res.body.next_page_token;
      pages++;
    } while (token);
    expect(ids).toHaveLength(GENERATED + EXPLICIT.length);
    expect(new Set(ids).size).toBe(ids.length);
    expect(pages).toBe(Math.ceil((GENERATED + EXPLICIT.length) / 100));

    // Stable ordering: the same walk with another page size yields the same sequence.
    const again: string[] = [];
    token = null;
    do {
      const q: string = `?max_results=77${token ? `&page_token=${token}` : ''}`;
      const res = await call('GET', list(q), MAIN.access);
      again.push(...res.body.workflows.map((w: Body) => w.id));
      token = res.body.next_page_token;
    } while (token);
    expect(again).toEqual(ids);
  });

  // next_page_token is "opaque continuation token for the next page", not declared nullable
  it('leaves next_page_token out of the last page instead of sending null', async () => {
    const res = await call('GET', list('?max_results=100', '/workflow/v1', spaceIdFor('other')), OTHER.access);
    expect(res.body.workflows).toHaveLength(1);
    expect(res.body).not.toHaveProperty('next_page_token');
  });

  it('filters by status, and the four filters partition the list', async () => {
    let total = 0;
    for (const status of ['active', 'archived', 'deleted', 'idle']) {
      let token: string | null = null;
      let count = 0;
      do {
        const q: string = `?status=${status}&max_results=100${token ? `&page_token=${token}` : ''}`;
        const res = await call('GET', list(q), MAIN.access);
        expect(res.status).toBe(200);
        for (const w of res.body.workflows) expect(w.status).toBe(status);
        count += res.body.workflows.length;
        token = res.body.next_page_token;
      } while (token);
      expect(count).toBeGreaterThan(0);
      total += count;
    }
    expect(total).toBe(GENERATED + EXPLICIT.length);
  });

  it.each(['0', '101', 'abc', '1.5', '', '-1', '1e2'])('rejects max_results=%j with a problem body', async (value) => {
    const url = list(`?max_results=${value}`);
    const res = await call('GET', url, MAIN.access);
    expectProblem(res, 400, new URL(url).pathname, 'max_results');
    expect(res.body.errors[0].detail).toBe('max_results must be between 1 and 100');
    expect(res.body.title).toBe('Bad Request');
  });

  it('accepts the bounds 1 and 100', async () => {
    expect((await call('GET', list('?max_results=1'), MAIN.access)).body.workflows).toHaveLength(1);
    expect((await call('GET', list('?max_results=100'), MAIN.access)).body.workflows).toHaveLength(100);
  });

  it('rejects an unknown status filter with pointer status', async () => {
    const url = list('?status=running');
    expectProblem(await call('GET', url, MAIN.access), 400, new URL(url).pathname, 'status');
  });

  it('rejects garbage, foreign and filter-mismatched page tokens with pointer page_token', async () => {
    const garbage = list('?page_token=not-a-token');
    expectProblem(await call('GET', garbage, MAIN.access), 400, new URL(garbage).pathname, 'page_token');

    const mainFirst = await call('GET', list('?max_results=1'), MAIN.access);
    const token = mainFirst.body.next_page_token as string;
    // A token of the main space replayed against another space (with that space's own key).
    const otherUrl = `${sim.workflowUrl}/workflow/v1/${spaceIdFor('other')}/workflows?page_token=${token}`;
    const foreign = await call('GET', otherUrl, OTHER.access);
    expectProblem(foreign, 400, new URL(otherUrl).pathname, 'page_token');
    expect(foreign.body.errors[0].detail).toMatch(/another space/);

    const mismatch = await call('GET', list(`?status=active&page_token=${token}`), MAIN.access);
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0].pointer).toBe('page_token');
  });

  it('reports several bad query parameters in one problem', async () => {
    const res = await call('GET', list('?max_results=0&status=nope'), MAIN.access);
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: Body) => e.pointer).sort()).toEqual(['max_results', 'status']);
  });
});

describe('authorisation of the workflow area', () => {
  it('401 without an Authorization header, as a problem body', async () => {
    const url = list();
    expectProblem(await call('GET', url), 401, new URL(url).pathname);
  });

  it('401 for an unknown key, before the space id is even looked at', async () => {
    const unknownKey = await call('GET', list(), 'no-such-key');
    expect(unknownKey.status).toBe(401);
    const badSpace = await call('GET', `${sim.workflowUrl}/workflow/v1/not-a-uuid/workflows`, 'no-such-key');
    expect(badSpace.status).toBe(401);
  });

  it('401 for a live-capture access token used as an API key', async () => {
    expect((await call('GET', list(), MAIN.token)).status).toBe(401);
  });

  it('400 with pointer space_id when space_id is not a UUID', async () => {
    const url = `${sim.workflowUrl}/workflow/v1/not-a-uuid/workflows`;
    expectProblem(await call('GET', url, MAIN.access), 400, '/workflow/v1/not-a-uuid/workflows', 'space_id');
  });

  it('404 for an unknown space', async () => {
    const url = list('', '/workflow/v1', '00000000-0000-4000-8000-000000000000');
    expectProblem(await call('GET', url, MAIN.access), 404, new URL(url).pathname);
  });

  it("401 for another space's key", async () => {
    expectProblem(await call('GET', list(), OTHER.admin), 401, new URL(list()).pathname);
  });

  it('lets every scope list (access is enough)', async () => {
    for (const key of [MAIN.access, MAIN.management, MAIN.admin]) {
      expect((await call('GET', list('?max_results=1'), key)).status).toBe(200);
    }
  });

  it('403 for an inactive subscription, after the credential checks', async () => {
    const url = list('', '/workflow/v1', spaceIdFor('lapsed'));
    const res = await call('GET', url, LAPSED.access);
    expectProblem(res, 403, new URL(url).pathname);
    expect(res.body.detail).toMatch(/inactive/);
    // The wrong key still gets 401 there: the subscription is only revealed to its own keys.
    expect((await call('GET', url, MAIN.admin)).status).toBe(401);
  });

  it('treats the space id case-insensitively', async () => {
    expect((await call('GET', list('?max_results=1', '/workflow/v1', MAIN_ID.toUpperCase()), MAIN.access)).status).toBe(
      200,
    );
  });
});

describe('get workflow (extension)', () => {
  const wfUrl = (id: string, prefix = '/workflow/v1') => `${sim.workflowUrl}${prefix}/${MAIN_ID}/workflows/${id}`;

  it('returns the workflow with its declared inputs on both prefixes', async () => {
    for (const prefix of ['/workflow/v1', '/workflow/api/v1']) {
      const res = await call('GET', wfUrl(workflowIdFor('Render'), prefix), MAIN.access);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id: workflowIdFor('Render'), name: 'Render', status: 'active' });
      expect(res.body.inputs.variables).toEqual([{ name: 'Title', typecode: 'String' }]);
      expect(res.body.inputs).toMatchObject({ media_nicknames: [], attachments: [], labels: [] });
    }
  });

  it('400 {code,message} for a workflow_id that is not a GUID', async () => {
    const res = await call('GET', wfUrl('nope'), MAIN.access);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ code: 400, message: expect.stringContaining('workflow_id') });
  });

  it('404 {error_message} for an unknown workflow', async () => {
    const res = await call('GET', wfUrl('00000000-0000-4000-8000-000000000000'), MAIN.access);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error_message: expect.stringContaining('not found') });
  });

  it('401 {error_message} without credentials', async () => {
    const res = await call('GET', wfUrl(workflowIdFor('Render')));
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error_message: expect.any(String) });
  });
});
