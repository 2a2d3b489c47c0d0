import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { compileRegex } from '../../../lib/schedule/sources/match';
import { nodeModule } from '../../support/node-modules';
import { helper, initRuntime } from '../../support/node-red-runtime';

/**
 * The window form's title-pattern check, in a real Node-RED runtime (dist/, `npm run build` first):
 * the pattern is compiled by RE2 in the runtime, as a deploy compiles it, never by the browser.
 */

const scheduleNode = nodeModule('media-spaces-schedule');
const TAB = { id: 'tab', type: 'tab', label: 'pattern' };
const check = async (body: object) => {
  const res = await helper.request().post('/media-spaces/schedule/pattern').send(body);
  return { status: res.status, body: res.body as { problem?: string | null; error?: { message: string } } };
};

beforeAll(() => {
  initRuntime();
});

afterEach(async () => {
  await helper.unload();
});

describe('POST /media-spaces/schedule/pattern', () => {
  it("names a pattern that does not parse with RE2's reason, the sentence a deploy gives", async () => {
    await helper.load([scheduleNode], [TAB]);
    const res = await check({ pattern: '(unclosed' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      problem: 'The title pattern "(unclosed" is not a valid regular expression (missing closing ): `(unclosed`).',
    });
    expect(res.body.problem).toBe(compileRegex('(unclosed', 'title'));
  });

  it("takes RE2's flag groups and an empty pattern; refuses backreferences", async () => {
    await helper.load([scheduleNode], [TAB]);
    expect((await check({ pattern: '(?i)^news' })).body).toEqual({ problem: null });
    expect((await check({ pattern: '' })).body).toEqual({ problem: null });
    expect((await check({ pattern: '(a)\\1' })).body.problem).toMatch(/uses a backreference/);
  });

  it('a catastrophic pattern for a backtracking engine is answered at once, and fine for RE2', async () => {
    await helper.load([scheduleNode], [TAB]);
    expect((await check({ pattern: '^(a+)+$' })).body).toEqual({ problem: null });
  });

  it('refuses what is not text, or text past 4096 characters, naming the limit', async () => {
    await helper.load([scheduleNode], [TAB]);
    for (const body of [{}, { pattern: 3 }, { pattern: 'a'.repeat(4097) }]) {
      const res = await check(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { message: 'pattern must be text of at most 4096 characters' } });
    }
  });
});
