import { describe, expect, it } from 'vitest';
import { createClient, idSegment } from '../../lib/client';
import { MediaSpacesError } from '../../lib/errors';
import { parseScheduleObject, parseScheduleYaml, Scheduler } from '../../lib/schedule';
import { ChannelCreateRequest, describeIssues } from '../../lib/schemas';
import { buildSubmitRequest } from '../../lib/submit-input';

/**
 * The defects the fuzz suites found, each pinned by the smallest input that
 * showed it, so that they stay fixed whatever the generators draw next time.
 */

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('fuzz findings, pinned', () => {
  it('field names like constructor, toString, valueOf and __proto__ are reported, not lost', () => {
    const parsed = ChannelCreateRequest.safeParse(JSON.parse('{"name":"x","valueOf":1,"constructor":5,"__proto__":2}'));
    expect(parsed.success).toBe(false);
    if (parsed.success) return;
    expect(Object.keys(describeIssues(parsed.error)).sort()).toEqual(['__proto__', 'constructor', 'valueOf']);

    const error = thrown(() =>
      buildSubmitRequest(JSON.parse('{"__proto__":{"a":1},"toString":1}')),
    ) as MediaSpacesError;
    expect(Object.keys(error.fieldErrors).sort()).toEqual(['__proto__', 'toString']);
    expect(error.message).toContain('__proto__');
    expect(({} as Record<string, unknown>).a).toBeUndefined();
  });

  it('a Buffer or thousands of bad entries make one short message; fieldErrors keeps them all', () => {
    const buffer = thrown(() =>
      buildSubmitRequest({ media_nicknames: Buffer.from('x'.repeat(5000)) }),
    ) as MediaSpacesError;
    expect(buffer.message).toMatch(/media_nicknames: must be .*got a Buffer/);
    expect(buffer.message.length).toBeLessThan(400);

    const many = Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`V${i}`, [i]]));
    const error = thrown(() => buildSubmitRequest({ variables: many })) as MediaSpacesError;
    expect(Object.keys(error.fieldErrors)).toHaveLength(3000);
    expect(error.message).toMatch(/and 2995 more \(job not submitted\)$/);
    expect(error.message.length).toBeLessThan(1000);
  });

  it('an id with a lone surrogate is refused naming the field, not with "URI malformed"', () => {
    const error = thrown(() => idSegment('event\ud800', 'event_id')) as MediaSpacesError;
    expect(error).toBeInstanceOf(MediaSpacesError);
    expect(error.fieldErrors).toEqual({ event_id: 'is not valid Unicode text' });
  });

  it('a 1 MB page token is refused naming page_token, before any request (it used to come back as HTTP 431)', async () => {
    const client = createClient({ workflowUrl: 'http://127.0.0.1:9', spaceId: '11111111-1111-4111-8111-111111111111' });
    try {
      const error = await client.listWorkflows({ pageToken: 'x'.repeat(1024 * 1024) }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MediaSpacesError);
      expect((error as MediaSpacesError).fieldErrors).toEqual({ page_token: 'must be at most 4096 characters' });
    } finally {
      await client.close();
    }
  });

  it('a second trigger of a window in the same second names window_id', () => {
    const config = parseScheduleYaml('windows:\n  - id: w\n    cron: "0 0 1 1 *"\n    duration: 1h\n');
    if (!config.ok) throw new Error('schedule does not parse');
    const clock = { now: () => 1_700_000_000_000, setTimeout: () => 0, clearTimeout: () => undefined };
    const scheduler = new Scheduler({ scheduleId: 's', config: config.config, clock, onStart() {}, onEnd() {} });
    scheduler.trigger('w');
    const again = thrown(() => scheduler.trigger('w')) as MediaSpacesError;
    expect(again).toBeInstanceOf(MediaSpacesError);
    expect(again.fieldErrors).toEqual({ window_id: 'already started this second' });
    const unknown = thrown(() => scheduler.trigger('x'.repeat(100_000))) as MediaSpacesError;
    expect(unknown.fieldErrors).toEqual({ window_id: 'unknown window' });
    expect(unknown.message.length).toBeLessThan(200);
    scheduler.stop();
  });

  it('schedule issues quote long values short, and an object id does not crash the checks', () => {
    const long = 'x'.repeat(100_000);
    for (const window of [
      { id: 'a', cron: long, duration: 60 },
      { id: 'a', cron: '* * * * *', duration: long },
      { id: 'a', cron: '* * * * *', duration: 60, timezone: long },
      { id: 'a', cron: '* * * * *', duration: 60, followup: { workflow_id: long } },
      { id: 'a', cron: '* * * * *', duration: 60, channel: { name: `{{${long}}}` } },
      { id: 'a', cron: '* * * * *', duration: 60, [long]: 1 },
    ]) {
      const result = parseScheduleObject({ windows: [window] });
      expect(result.ok).toBe(false);
      if (!result.ok) for (const issue of result.issues) expect(issue.message.length).toBeLessThan(400);
    }
    const odd = parseScheduleObject({ windows: [{ id: { toString: 1 }, cron: '* * * * *', duration: 60 }] });
    expect(odd.ok).toBe(false);
  });

  it('a template opened and never closed is checked at once (the pattern backtracked: 5,000 blanks took 50 s)', () => {
    const blanks = ' '.repeat(200_000);
    for (const name of [`{{${blanks}`, `{{${blanks}x`, `{{ window.name${blanks}x`]) {
      const result = parseScheduleObject({
        windows: [{ id: 'a', cron: '* * * * *', duration: 60, channel: { name } }],
      });
      expect(result.ok).toBe(false);
    }
    const fine = parseScheduleObject({
      windows: [{ id: 'a', cron: '* * * * *', duration: 60, channel: { name: `{{ window.name${blanks}}}` } }],
    });
    expect(fine.ok).toBe(true);
  }, 5_000);

  it('a YAML alias inside its own anchor is an issue with its line (the template check recursed forever)', () => {
    const result = parseScheduleYaml(
      'windows:\n  - id: a\n    cron: "* * * * *"\n    duration: 60\n    followup:\n' +
        '      workflow_id: aaaaaaaa-0000-4000-8000-000000000001\n      variables:\n        x: &a [*a]\n',
    );
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.issues).toHaveLength(1);
      expect(result.issues[0]).toMatchObject({ line: 8, path: 'windows[0].followup.variables.x[0]' });
    }
    // an alias used twice (shared, not circular) is fine
    const shared = parseScheduleYaml(
      'windows:\n  - id: a\n    cron: "* * * * *"\n    duration: 60\n    channel: &c { name: x }\n' +
        '  - id: b\n    cron: "* * * * *"\n    duration: 60\n    channel: *c\n',
    );
    expect(shared.ok).toBe(true);
  });

  it('a template rooted at an Object.prototype name is an issue (it threw "fields.includes is not a function")', () => {
    for (const root of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      const result = parseScheduleObject({
        windows: [{ id: 'a', cron: '* * * * *', duration: 60, channel: { name: `{{${root}.x}}` } }],
      });
      expect(result.ok, root).toBe(false);
      if (!result.ok) expect(result.issues[0].message, root).toMatch(/must start with one of window\., slot\./);
    }
  });

  it('a channel request with thousands of bad tags makes one short message', async () => {
    const client = createClient({
      workflowUrl: 'http://127.0.0.1:9',
      liveCaptureUrl: 'http://127.0.0.1:9',
      spaceId: '11111111-1111-4111-8111-111111111111',
      accessToken: 't',
    });
    try {
      const tags = Array.from({ length: 3000 }, (_, i) => i);
      const error = (await client.createChannel({ name: 'x', tags }).catch((e: unknown) => e)) as MediaSpacesError;
      expect(Object.keys(error.fieldErrors)).toHaveLength(3000);
      expect(error.message).toMatch(/; and 2995 more$/);
      expect(error.message.length).toBeLessThan(600);
    } finally {
      await client.close();
    }
  });

  it('YAML with a list as a key is an issue with its line, without a process warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    try {
      const result = parseScheduleYaml(
        'windows:\n  - id: a\n    ? [x, y]\n    : 1\n    cron: "* * * * *"\n    duration: 60\n',
      );
      expect(result.ok).toBe(false);
      if (!result.ok) expect(result.issues.every((i) => typeof i.line === 'number')).toBe(true);
      // process warnings are emitted on the next tick
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });
});
