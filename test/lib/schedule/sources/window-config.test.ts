import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { isFeedWindow, parseSourceWindow } from '../../../../lib/schedule/sources/window-config';

const SAMPLE = `
windows:
  - id: newsroom
    ical: https://calendar.example.com/newsroom.ics
    match: { title: "^REC " }
    padding: { before: 2m, after: 5m }
    channel: { name: "{{occurrence.title}}", source_id: 3c0f0000-0000-4000-8000-000000000000 }
  - id: doctor-who
    xmltv: /data/guide.xml.gz
    match: { channel: bbc1.uk, title: "^Doctor Who$", days: [sat], between: "17:00-21:00", new_only: true }
    padding: { before: 1m, after: 10m }
    sources: { bbc1.uk: 3c0f0000-0000-4000-8000-000000000000 }
`;

const windows = (parse(SAMPLE) as { windows: unknown[] }).windows;

describe('feed window config', () => {
  it("reads the sample document's windows, defaults filled in, durations in ms", () => {
    expect(windows.map(isFeedWindow)).toEqual([true, true]);
    expect(parseSourceWindow(windows[0])).toEqual({
      ok: true,
      window: {
        kind: 'ical',
        id: 'newsroom',
        location: 'https://calendar.example.com/newsroom.ics',
        match: { title: '^REC ' },
        padding: { before: 120_000, after: 300_000 },
        refresh: 15 * 60_000,
        onCancel: 'keep',
        allowEmpty: false,
        allDay: false,
      },
    });
    expect(parseSourceWindow(windows[1])).toEqual({
      ok: true,
      window: {
        kind: 'xmltv',
        id: 'doctor-who',
        location: '/data/guide.xml.gz',
        match: { channel: 'bbc1.uk', title: '^Doctor Who$', days: ['sat'], between: '17:00-21:00', new_only: true },
        padding: { before: 60_000, after: 600_000 },
        sources: { 'bbc1.uk': '3c0f0000-0000-4000-8000-000000000000' },
        refresh: 15 * 60_000,
        onCancel: 'keep',
        allowEmpty: false,
      },
    });
  });

  it('reads the optional fields', () => {
    const result = parseSourceWindow({
      id: 'cal',
      ical: 'webcal://example.com/a.ics',
      all_day: true,
      default_duration: '30m',
      refresh: '5m',
      on_cancel: 'stop',
      allow_empty: true,
      padding: { before: 0, after: '90s' },
    });
    expect(result).toMatchObject({
      ok: true,
      window: {
        allDay: true,
        defaultDuration: 1_800_000,
        refresh: 300_000,
        onCancel: 'stop',
        allowEmpty: true,
        padding: { before: 0, after: 90_000 },
      },
    });
    expect(isFeedWindow({ id: 'x', cron: '0 18 * * *' })).toBe(false);
  });

  it.each([
    [{ id: 'a', ical: '' }, 'ical', 'must not be empty'],
    [{ id: 'a', ical: 'ftp://example.com/x.ics' }, 'ical', 'must be an http, https, webcal or file address, not ftp:'],
    [
      { id: 'a', ical: 'x.ics', match: { title: '(' } },
      'match.title',
      /^The title pattern "\(" is not a valid regular expression/,
    ],
    [{ id: 'a', ical: 'x.ics', match: { summary: 'x' } }, 'match', 'has no field "summary"'],
    [{ id: 'a', ical: 'x.ics', padding: { before: 'soon' } }, 'padding.before', /"soon" is not a duration/],
    [
      { id: 'a', ical: 'x.ics', refresh: '10s' },
      'refresh',
      'must be at least 1m (a feed server is not to be hammered)',
    ],
    [{ id: 'a', ical: 'x.ics', on_cancel: 'later' }, 'on_cancel', 'must be one of keep, stop'],
    [{ id: 'a', xmltv: 'g.xml', match: { days: ['funday'] } }, 'match.days.0', /must be one of sun, mon/],
    [{ id: 'a', xmltv: 'g.xml', match: { between: '5pm' } }, 'match.between', /"5pm" is not HH:MM-HH:MM/],
    [{ id: 'a', xmltv: 'g.xml', sources: { 'bbc1.uk': '' } }, 'sources.bbc1.uk', 'must not be empty'],
    [{ id: 'a', xmltv: 'g.xml', ical: 'c.ics' }, 'xmltv', 'a window reads either an ical or an xmltv feed, not both'],
    [
      { id: 'a', ical: 'c.ics', cron: '* * * * *' },
      'cron',
      'a window takes its times from cron or from a feed, not both',
    ],
    [{ id: '-bad', ical: 'c.ics' }, 'id', /^must be 1-64 letters/],
  ])('%j: the issue names its field', (raw, pathName, message) => {
    const result = parseSourceWindow(raw);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const issue = result.issues.find((i) => i.path === pathName);
    expect(issue, JSON.stringify(result.issues)).toBeDefined();
    expect(issue?.message).toMatch(message);
  });
});
