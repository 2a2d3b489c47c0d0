import { describe, expect, it } from 'vitest';
import {
  formatIssue,
  loadScheduleYaml,
  parseScheduleObject,
  parseScheduleYaml,
  ScheduleConfigError,
} from '../../../lib/schedule/config';
import { formatDuration, parseDuration } from '../../../lib/schedule/duration';
import { buildEndMessage, buildStartMessage, type Slot, slotKey } from '../../../lib/schedule/messages';
import { previewSchedule } from '../../../lib/schedule/preview';
import { checkTemplates, lookup, renderTemplates } from '../../../lib/schedule/template';

const SOURCE = '6f1c2a9e-1b2c-4d5e-8f90-123456789abc';
const WORKFLOW = '0b6a3c1e-7d2f-4e8a-9c1b-2d3e4f5a6b7c';

const GOOD = `schedule_id: studio-a
timezone: Europe/London
windows:
  - id: evening-news
    name: Evening news
    cron: "0 18 * * mon-fri"
    duration: 1h30m
    channel:
      source_id: ${SOURCE}
      expected_properties: { video: hd }
      region: eu-west
      tags: [news, "{{slot.date}}"]
    followup:
      workflow_id: ${WORKFLOW}
      job_name: "Archive {{window.name}} {{slot.date}}"
      variables:
        Title: "{{window.name}} at {{slot.time}}"
        ChannelId: "{{channel.id}}"
      media_nicknames:
        Source: "{{channel.recording.outputs[0].location_url}}"
  - id: overnight
    cron: "30 1 * * *"
    timezone: America/New_York
    duration: PT1H
    enabled: false
`;

function issuesOf(text: string): string[] {
  const result = parseScheduleYaml(text);
  if (result.ok) throw new Error('expected the schedule to be invalid');
  return result.issues.map(formatIssue);
}

describe('schedule YAML', () => {
  it('parses windows with defaults filled in', () => {
    const result = parseScheduleYaml(GOOD);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const { config } = result;
    expect(config.scheduleId).toBe('studio-a');
    expect(config.windows).toHaveLength(2);
    expect(config.windows[0]).toMatchObject({
      id: 'evening-news',
      name: 'Evening news',
      timezone: 'Europe/London',
      duration: 5400,
      enabled: true,
    });
    expect(config.windows[1]).toMatchObject({
      id: 'overnight',
      name: 'overnight',
      timezone: 'America/New_York',
      duration: 3600,
      enabled: false,
    });
  });

  it('reports a bad cron expression with its line and field', () => {
    const text = `windows:
  - id: a
    cron: "0 18 * * *"
    duration: 90m
  - id: b
    name: Late
    cron: "61 * * * *"
    duration: 90m
`;
    expect(issuesOf(text)).toEqual([
      'line 7: windows[1].cron: "61 * * * *" is not a valid cron expression (minute 61 out of range 0-59)',
    ]);
  });

  it('reports every problem, each on its own line, sorted', () => {
    const text = `timezone: Europe/London
windows:
  - id: late
    cron: "0 18 * * *"
    timezone: Europe/Londn
    duration: 90x
    crom: x
    channel:
      source_id: abc
      name: "{{chanel.id}}"
      recording_duration: 0
    followup:
      workflow_id: nope
  - id: late
    cron: "0 6 * * *"
`;
    expect(issuesOf(text)).toEqual([
      'line 5: windows[0].timezone: "Europe/Londn" is not an IANA time zone known here (e.g. Europe/London, America/New_York, UTC)',
      'line 6: windows[0].duration: "90x" is not a duration (use e.g. 90m, 1h30m, 2h, 45s, 1d, PT1H30M or a number of seconds)',
      'line 7: windows[0].crom: unknown field "crom" (did you mean "cron"?); expected one of id, name, cron, timezone, duration, enabled, at_end, alarm_after, priority, rerecord, channel, followup, ical, xmltv, messages, match, padding, refresh, on_cancel, allow_empty, all_day, default_duration, sources',
      'line 9: windows[0].channel.source_id: "abc" must be a UUID (8-4-4-4-12 hex digits)',
      'line 10: windows[0].channel.name: template "{{chanel.id}}" must start with one of window., slot., schedule., occurrence. (the channel does not exist yet when it is created)',
      'line 11: windows[0].channel.recording_duration: 0 must be at least 1',
      'line 13: windows[0].followup.workflow_id: "nope" must be a UUID (8-4-4-4-12 hex digits)',
      'line 14: windows[1].duration: is required',
      'line 14: windows[1].id: duplicate window id "late" (also windows[0])',
    ]);
  });

  it('reports YAML syntax errors with their line', () => {
    const [issue] = issuesOf('windows:\n  - id: a\n    cron: [1,\n');
    expect(issue).toMatch(/^line \d+: YAML syntax: /);
    expect(issuesOf('windows: []\nwindows: []\n')[0]).toMatch(/^line 2: YAML syntax: Map keys must be unique/);
  });

  it('rejects an empty or wrongly shaped document', () => {
    expect(issuesOf('')).toEqual(['line 1: the schedule is empty: expected a mapping with a "windows" list']);
    expect(issuesOf('- id: a\n')).toEqual(['line 1: must be a mapping with a "windows" list, got a list']);
    expect(issuesOf('windows: 3\n')).toEqual(['line 1: windows: must be a list of windows, got number 3']);
  });

  it('reports template mistakes in the follow-up', () => {
    const text = `windows:
  - id: a
    cron: "0 18 * * *"
    duration: 1h
    followup:
      workflow: Archive
      variables:
        X: "{{slot.begin}}"
        Y: "{{channel.id"
`;
    expect(issuesOf(text)).toEqual([
      'line 8: windows[0].followup.variables.X: template "{{slot.begin}}": slot has no field "begin" (known: key, start, end, date, time, end_date, end_time, local_start, local_end, epoch, reason)',
      'line 9: windows[0].followup.variables.Y: "{{channel.id" has a "{{" without a matching "}}"',
    ]);
  });

  it('requires a workflow in a follow-up', () => {
    const text = 'windows:\n  - id: a\n    cron: "0 18 * * *"\n    duration: 1h\n    followup:\n      job_name: x\n';
    expect(issuesOf(text)).toEqual(['line 5: windows[0].followup: needs workflow_id (or workflow, a workflow name)']);
  });

  it('throws one ScheduleConfigError naming every issue', () => {
    try {
      loadScheduleYaml('windows:\n  - id: a\n    cron: "61 * * * *"\n    duration: 1h\n');
      throw new Error('not thrown');
    } catch (err) {
      expect(err).toBeInstanceOf(ScheduleConfigError);
      const e = err as ScheduleConfigError;
      expect(e.code).toBe('invalid_input');
      expect(e.message).toContain('line 3: windows[0].cron: "61 * * * *" is not a valid cron expression');
      expect(e.fieldErrors['windows[0].cron']).toMatch(/^line 3: /);
      expect(e.issues).toHaveLength(1);
    }
  });

  it('validates the editor object model with paths and no lines', () => {
    const result = parseScheduleObject({ windows: [{ id: 'a', cron: '0 25 * * *', duration: '1h' }] });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues.map(formatIssue)).toEqual([
      'windows[0].cron: "0 25 * * *" is not a valid cron expression (hour 25 out of range 0-23)',
    ]);
  });

  it('uses the default zone when neither the window nor the document names one', () => {
    const result = parseScheduleYaml('windows:\n  - id: a\n    cron: "0 18 * * *"\n    duration: 1h\n', {
      defaultTimezone: 'Australia/Sydney',
    });
    expect(result.ok && result.config.windows[0].timezone).toBe('Australia/Sydney');
  });
});

describe('durations', () => {
  it.each([
    ['90m', 5400],
    ['1h30m', 5400],
    ['1h 30m', 5400],
    ['2h', 7200],
    ['45s', 45],
    ['1d', 86400],
    ['PT1H', 3600],
    ['PT1H30M', 5400],
    ['P1DT2H', 93600],
    ['pt90s', 90],
    [5400, 5400],
    ['5400', 5400],
  ])('%s = %i s', (text, seconds) => {
    expect(parseDuration(text)).toBe(seconds);
  });

  it.each([['90x'], [''], ['P'], ['PT'], ['1h1h'], [0], [-5], ['32d'], [null], [true]])('rejects %s', (text) => {
    expect(() => parseDuration(text)).toThrow();
  });

  it('formats compactly', () => {
    expect(formatDuration(5400)).toBe('1h30m');
    expect(formatDuration(93600)).toBe('1d2h');
    expect(formatDuration(45)).toBe('45s');
  });
});

describe('templates', () => {
  const context = {
    window: { name: 'News', id: 'n' },
    slot: { start: '2024-11-22T18:00:00Z' },
    channel: { id: 'c-1', recording: { outputs: [{ location_url: 's3://bucket/news.mp4' }] }, recording_duration: 2 },
  };

  it('resolves paths with dots and indexes, keeping the type of whole-value templates', () => {
    expect(lookup(context, 'channel.recording.outputs[0].location_url')).toBe('s3://bucket/news.mp4');
    expect(lookup(context, 'channel.constructor')).toBeUndefined();
    expect(
      renderTemplates(
        {
          a: '{{window.name}} at {{slot.start}}',
          b: '{{ channel.recording_duration }}',
          c: ['{{channel.id}}'],
          d: '{{channel.recording}}',
          e: 'x {{channel.recording.outputs}}',
          f: 5,
        },
        context,
      ),
    ).toEqual({
      a: 'News at 2024-11-22T18:00:00Z',
      b: 2,
      c: ['c-1'],
      d: { outputs: [{ location_url: 's3://bucket/news.mp4' }] },
      e: 'x [{"location_url":"s3://bucket/news.mp4"}]',
      f: 5,
    });
  });

  it('turns unknown paths into empty text and reports them', () => {
    const unresolved = new Set<string>();
    expect(
      renderTemplates({ a: '{{channel.nope}}', b: 'id={{channel.recording.outputs[3].x}}' }, context, unresolved),
    ).toEqual({ a: '', b: 'id=' });
    expect([...unresolved]).toEqual(['channel.nope', 'channel.recording.outputs[3].x']);
  });

  it('checks roots and fields', () => {
    const problems = checkTemplates(
      { x: '{{foo.bar}}', y: '{{window.nme}}', z: '{{ 1 + 2 }}' },
      {
        window: ['name'],
        channel: 'any',
      },
    );
    expect(problems.map((p) => p.message)).toEqual([
      'template "{{foo.bar}}" must start with one of window., channel.',
      'template "{{window.nme}}": window has no field "nme" (known: name)',
      'template "{{1 + 2}}" is not a path such as window.name or channel.id',
    ]);
  });
});

describe('start and end messages', () => {
  const result = parseScheduleYaml(GOOD);
  if (!result.ok) throw new Error('fixture invalid');
  const window = result.config.windows[0];
  const start = Date.UTC(2024, 10, 22, 18);
  const slot: Slot = {
    key: slotKey('studio-a', window.id, start),
    windowId: window.id,
    start,
    end: start + window.duration * 1000,
    reason: 'scheduled',
  };

  it('uses <schedule>:<window>:<ISO start> as the slot key', () => {
    expect(slot.key).toBe('studio-a:evening-news:2024-11-22T18:00:00Z');
  });

  it('builds the create-channel request with a slot-templated name', () => {
    const msg = buildStartMessage('studio-a', window, slot);
    expect(msg).toEqual({
      topic: 'Evening news',
      payload: {
        name: 'Evening news 2024-11-22 18:00',
        source_id: SOURCE,
        expected_properties: '{"video":"hd"}',
        region: 'eu-west',
        tags: ['news', '2024-11-22'],
      },
      idempotency_key: 'studio-a:evening-news:2024-11-22T18:00:00Z',
      window: {
        id: 'evening-news',
        name: 'Evening news',
        start: '2024-11-22T18:00:00Z',
        end: '2024-11-22T19:30:00Z',
        timezone: 'Europe/London',
        slotKey: 'studio-a:evening-news:2024-11-22T18:00:00Z',
        reason: 'scheduled',
      },
    });
  });

  it('resolves the follow-up against the channel that came back', () => {
    const channel = { id: 'c-9', recording: { outputs: [{ location_url: 's3://rec/news.mp4' }] } };
    const msg = buildEndMessage('studio-a', window, slot, channel);
    expect(msg).toMatchObject({
      workflow_id: WORKFLOW,
      job_name: 'Archive Evening news 2024-11-22',
      idempotency_key: 'studio-a:evening-news:2024-11-22T18:00:00Z:end',
      payload: {
        variables: { Title: 'Evening news at 18:00', ChannelId: 'c-9' },
        media_nicknames: { Source: 's3://rec/news.mp4' },
      },
      channel,
    });
    expect(msg.unresolved).toBeUndefined();
  });

  it('carries the window alone when no channel came back', () => {
    const msg = buildEndMessage('studio-a', window, slot);
    expect(msg.channel).toBeUndefined();
    expect(msg.window.slotKey).toBe(slot.key);
    expect(msg.payload).toEqual({
      variables: { Title: 'Evening news at 18:00', ChannelId: '' },
      media_nicknames: { Source: '' },
    });
    expect(msg.unresolved).toEqual(['channel.id', 'channel.recording.outputs[0].location_url']);
  });
});

describe('editor preview', () => {
  it('describes each window and lists its next five starts', () => {
    const preview = previewSchedule({ yaml: GOOD, now: Date.UTC(2024, 10, 21, 12) });
    expect(preview.ok).toBe(true);
    expect(preview.windows[0].description).toBe('at 18:00 on Monday to Friday');
    expect(preview.windows[0].next.map((n) => n.label)).toEqual([
      'Thu 21 Nov 18:00 Europe/London',
      'Fri 22 Nov 18:00 Europe/London',
      'Mon 25 Nov 18:00 Europe/London',
      'Tue 26 Nov 18:00 Europe/London',
      'Wed 27 Nov 18:00 Europe/London',
    ]);
    expect(preview.windows[1]).toMatchObject({ description: 'every day at 01:30', duration: '1h', enabled: false });
    expect(preview.model).toMatchObject({ schedule_id: 'studio-a' });
  });

  it('reports errors with lines, and converts the model to YAML', () => {
    const bad = previewSchedule({ yaml: 'windows:\n  - id: a\n    cron: "61 * * * *"\n    duration: 1h\n' });
    expect(bad.ok).toBe(false);
    expect(bad.issues[0]).toMatchObject({ line: 3, path: 'windows[0].cron' });
    expect(bad.issues[0].text).toMatch(/^line 3: windows\[0\]\.cron: "61 \* \* \* \*" is not a valid cron/);

    const fromModel = previewSchedule({ model: { windows: [{ id: 'a', cron: '0 6 * * *', duration: '1h' }] } });
    expect(fromModel.ok).toBe(true);
    expect(parseScheduleYaml(fromModel.yaml ?? '').ok).toBe(true);
  });
});

describe('a window priority', () => {
  it('is a whole number from -1000 to 1000, kept on the window; absent, the window has none (0)', () => {
    const config = loadScheduleYaml(
      'max_channels: 2\nwindows:\n  - { id: a, cron: "0 18 * * *", duration: 1h, priority: 3 }\n  - { id: b, cron: "0 18 * * *", duration: 1h }\n',
    );
    expect(config.windows.map((w) => w.priority)).toEqual([3, undefined]);
    expect(config.maxChannels).toBe(2);
    const bad = parseScheduleYaml(
      'windows:\n  - { id: a, cron: "0 18 * * *", duration: 1h, priority: 1.5 }\n  - { id: b, cron: "0 18 * * *", duration: 1h, priority: high }\n  - { id: c, cron: "0 18 * * *", duration: 1h, priority: 5000 }\n',
    );
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.issues.map((i) => `${i.path}: ${i.message}`)).toEqual([
      'windows[0].priority: must be a whole number',
      'windows[1].priority: must be a number, got the text "high"',
      'windows[2].priority: must be at most 1000',
    ]);
  });
});

describe('a window rerecord', () => {
  it('is true (the defaults: 7 days, more than 10% lost) or { within, min_lost } on a calendar or guide window', () => {
    const config = loadScheduleYaml(`windows:
  - { id: a, xmltv: /tmp/guide.xml, match: { title: "^News$" }, rerecord: true }
  - { id: b, ical: /tmp/cal.ics, rerecord: { within: 3d, min_lost: 25% } }
  - { id: c, xmltv: /tmp/guide.xml, rerecord: { min_lost: 0.5 } }
  - { id: d, xmltv: /tmp/guide.xml }
`);
    expect(config.windows.map((w) => w.rerecord)).toEqual([
      { within: 7 * 86400, minLost: 0.1 },
      { within: 3 * 86400, minLost: 0.25 },
      { within: 7 * 86400, minLost: 0.5 },
      undefined,
    ]);
  });

  it('names what is wrong: a window no feed lists airings for, a share out of range, an unknown field', () => {
    const bad = parseScheduleYaml(`windows:
  - { id: a, cron: "0 18 * * *", duration: 1h, rerecord: true }
  - { id: b, messages: true, rerecord: true }
  - { id: c, xmltv: /tmp/guide.xml, rerecord: { min_lost: 150% } }
  - { id: d, xmltv: /tmp/guide.xml, rerecord: { within: soon } }
  - { id: e, xmltv: /tmp/guide.xml, rerecord: { whithin: 2d } }
  - { id: f, xmltv: /tmp/guide.xml, rerecord: yes }
`);
    expect(bad.ok).toBe(false);
    expect(bad.ok ? [] : bad.issues.map((i) => `${i.line} ${i.path}: ${i.message}`)).toEqual([
      '2 windows[0].rerecord: needs a calendar (ical) or guide (xmltv) window: only a feed lists later airings',
      '3 windows[1].rerecord: needs a calendar (ical) or guide (xmltv) window: only a feed lists later airings',
      '4 windows[2].rerecord.min_lost: must be a share from 0% to 100% (or 0 to 1)',
      expect.stringMatching(/^5 windows\[3\]\.rerecord\.within: /),
      '6 windows[4].rerecord.whithin: unknown field "whithin" (did you mean "within"?); expected one of within, min_lost',
      expect.stringMatching(/^7 windows\[5\]\.rerecord: /),
    ]);
  });
});
