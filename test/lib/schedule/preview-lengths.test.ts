import { describe, expect, it } from 'vitest';
import { previewSchedule } from '../../../lib/schedule/preview';

/** The preview states each source's real lengths: a listed window's occurrences keep their own. */
describe('the preview of calendar, guide and messages windows', () => {
  const yaml = `timezone: Europe/London
windows:
  - id: news
    cron: "0 18 * * *"
    duration: 30m
  - id: newsroom
    ical: newsroom.ics
    padding: { before: 2m, after: 5m }
  - id: desk
    ical: desk.ics
    default_duration: 45m
  - id: doctor-who
    xmltv: guide.xml
    padding: { after: 10m }
  - id: upstream
    messages: true
`;
  const res = previewSchedule({ yaml, count: 1 });

  it('says a cron window lasts its duration, and each listed window what its occurrences last', () => {
    expect(res.ok).toBe(true);
    const byId = new Map(res.windows.map((w) => [w.id, w]));
    expect(byId.get('news')?.lengths).toBeUndefined();
    expect(byId.get('news')?.duration).toBe('30m');
    expect(byId.get('newsroom')?.lengths).toBe(
      'each event as long as the calendar says (1h when it gives no end), padded 2m before and 5m after; 1h for a manual start',
    );
    expect(byId.get('desk')?.lengths).toBe(
      'each event as long as the calendar says (45m when it gives no end); 45m for a manual start',
    );
    expect(byId.get('doctor-who')?.lengths).toBe(
      'each programme as long as the guide says, padded 10m after; 1h for a manual start',
    );
    expect(byId.get('upstream')?.lengths).toBe('each entry as long as its message says; 1h for a manual start');
    // a listed window has no cron: the editor writes its words without a colon before them
    for (const id of ['newsroom', 'desk', 'doctor-who', 'upstream']) expect(byId.get(id)?.cron).toBe('');
  });
});

describe("the preview of a feed window's priority and re-record", () => {
  it('states both, as for a cron window', () => {
    const res = previewSchedule({
      yaml: `windows:
  - { id: drama, xmltv: guide.xml, priority: 2, rerecord: { within: 3d } }
  - { id: desk, ical: desk.ics }
`,
      count: 1,
    });
    expect(res.ok).toBe(true);
    expect(res.windows.map((w) => [w.id, w.priority, w.rerecord])).toEqual([
      ['drama', 2, { within: '3d', min_lost: '10%' }],
      ['desk', undefined, undefined],
    ]);
  });
});
