import { describe, expect, it } from 'vitest';
import { parseScheduleYaml } from '../../../lib/schedule/config';
import { buildEndMessage, buildStartMessage, occurrenceName, type Slot } from '../../../lib/schedule/messages';

/**
 * A slot is named by its programme (a calendar's or guide's title, with the episode) wherever it is named,
 * and by its window when the source gives no title; titles are never shortened in the data (a name is cut
 * where the service would refuse it).
 */

const YAML = `schedule_id: newsroom
timezone: Europe/London
windows:
  - id: newsroom
    name: Newsroom calendar
    cron: "0 18 * * *"
    duration: 1h
    channel:
      source_id: 6f1c2a9e-1b2c-4d5e-8f90-123456789abc
    followup:
      workflow_id: 0b6a3c1e-7d2f-4e8a-9c1b-2d3e4f5a6b7c
`;
function windowOf(yaml: string) {
  const result = parseScheduleYaml(yaml);
  if (!result.ok) throw new Error('fixture invalid');
  return result.config.windows[0];
}
const window = windowOf(YAML);
const START = Date.UTC(2026, 10, 28, 19, 15, 30);
const END = Date.UTC(2026, 10, 28, 19, 18, 30);
const slot = (programme?: Slot['programme']): Slot => ({
  key: `newsroom:newsroom:${programme ? 'uid-1' : '2026-11-28T19:15:30Z'}`,
  windowId: 'newsroom',
  start: START,
  end: END,
  reason: 'scheduled',
  ...(programme ? { occurrence: 'uid-1', programme } : {}),
});

describe('the name of a slot', () => {
  it('is the title and episode, else the title, else the window name', () => {
    expect(occurrenceName('Newsroom calendar', { title: 'REC Headlines', episode: 'S01E02' })).toBe(
      'REC Headlines · S01E02',
    );
    expect(occurrenceName('Newsroom calendar', { title: '  REC Headlines ', episode: ' ' })).toBe('REC Headlines');
    expect(occurrenceName('Newsroom calendar', { title: '', episode: 'S01E02' })).toBe('Newsroom calendar');
    expect(occurrenceName('Newsroom calendar')).toBe('Newsroom calendar');
  });

  it('begins the default channel and job names and is the Debug topic of a titled slot', () => {
    const s = slot({ title: 'REC Headlines', start: START, end: END });
    const start = buildStartMessage('newsroom', window, s);
    expect(start.payload.name).toBe('REC Headlines 2026-11-28 19:15:30');
    expect(start.topic).toBe('REC Headlines');
    const end = buildEndMessage('newsroom', window, s);
    expect(end.job_name).toBe('REC Headlines 2026-11-28 19:15:30');
    expect(end.topic).toBe('REC Headlines');
  });

  it("is the window's name when the occurrence has no title", () => {
    const start = buildStartMessage('newsroom', window, slot());
    expect(start.payload.name).toBe('Newsroom calendar 2026-11-28 19:15:30');
    expect(start.topic).toBe('Newsroom calendar');
    expect(buildEndMessage('newsroom', window, slot()).job_name).toBe('Newsroom calendar 2026-11-28 19:15:30');
  });

  it('keeps a long title whole, with its episode, up to the 200 characters a name may take', () => {
    const title = `REC ${'Very long programme title '.repeat(7).trim()}`;
    const s = slot({ title, episode: 'S02E05', start: START, end: END });
    expect(buildStartMessage('newsroom', window, s).payload.name).toBe(`${title} · S02E05 2026-11-28 19:15:30`);
    expect(buildEndMessage('newsroom', window, s).topic).toBe(`${title} · S02E05`);
  });

  it('can be named in a template as occurrence.name', () => {
    const w = windowOf(YAML.replace('    channel:\n', '    channel:\n      description: "{{occurrence.name}}"\n'));
    expect(
      buildStartMessage('newsroom', w, slot({ title: 'REC Headlines', start: START, end: END })).payload,
    ).toMatchObject({ description: 'REC Headlines' });
  });
});

describe('a programme title longer than a channel name may be', () => {
  it('is cut in the occurrence name to 200 characters, so the default channel and job names stay within 256, and kept whole as the title', () => {
    const title = `${'A'.repeat(198)}😀${'B'.repeat(4000)}`;
    const name = occurrenceName('Newsroom calendar', { title, episode: 'S01E02' });
    expect(name.length).toBeLessThanOrEqual(200);
    expect(name.endsWith('…')).toBe(true);
    // the emoji's surrogate pair would straddle the cut: it is left out whole, never halved
    expect(name).toBe(`${'A'.repeat(198)}…`);
    expect(occurrenceName('W', { title: 'x'.repeat(200) })).toBe('x'.repeat(200));
    const long = slot({ title: 'T'.repeat(4096), start: START, end: END });
    const start = buildStartMessage('newsroom', window, long);
    expect(String(start.payload.name).length).toBeLessThanOrEqual(256);
    expect(String(buildEndMessage('newsroom', window, long).job_name).length).toBeLessThanOrEqual(256);
    expect(start.window.name).toBe('Newsroom calendar');
  });
});
