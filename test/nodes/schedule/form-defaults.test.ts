import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseScheduleYaml } from '../../../lib/schedule/config';
import { parseDuration } from '../../../lib/schedule/duration';
import { FEED_WINDOW_DEFAULTS } from '../../../lib/schedule/feed-defaults';
import { compileGuideMatch } from '../../../lib/schedule/sources/guide-match';
import { parseSourceWindow } from '../../../lib/schedule/sources/window-config';
import { shownDefault } from '../../../nodes/schedule/editor/feed-fields';

/**
 * Each default the window form states (a placeholder, a select's first option) is what the runtime does
 * with a window that leaves the field out: the runtime's parse of a bare calendar and guide window is the
 * reference, not the table both read.
 */

const catalog = JSON.parse(
  readFileSync(new URL('../../../nodes/schedule/locales/en-US/media-spaces-schedule.json', import.meta.url), 'utf8'),
)['media-spaces-schedule'];
const label = (key: string): string => {
  const value = key.split('.').reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], catalog);
  if (typeof value !== 'string') throw new Error(`no label ${key}`);
  return value;
};

function runtime(raw: Record<string, unknown>) {
  const parsed = parseSourceWindow(raw);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues));
  return parsed.window;
}

const calendar = runtime({ id: 'newsroom', ical: 'newsroom.ics' });
const guide = runtime({ id: 'doctor-who', xmltv: 'guide.xml' });

describe('the window form states the runtime defaults', () => {
  it('refresh: the placeholder is the interval the runtime fetches at', () => {
    const shown = shownDefault(label, 'refresh');
    expect(shown).toBe('15m');
    expect(parseDuration(shown) * 1000).toBe(calendar.refresh);
    expect(parseDuration(shown) * 1000).toBe(guide.refresh);
  });

  it('when cancelled: the first option names what the runtime does', () => {
    expect(calendar.onCancel).toBe('keep');
    expect(shownDefault(label, 'on_cancel')).toBe('default: keep recording');
    expect(label(`feed.cancel.${calendar.onCancel}`)).toMatch(/^keep recording/);
  });

  it('duplicates: the first option says the runtime records every showing', () => {
    const rules = compileGuideMatch(guide.kind === 'xmltv' ? guide.match : {});
    if (typeof rules === 'string') throw new Error(rules);
    expect(rules.once).toBe(false);
    expect(shownDefault(label, 'duplicates')).toBe('duplicates: default (record all)');
    // the option written out when chosen is the one the runtime would otherwise apply
    expect(label('feed.duplicates.all')).toBe('duplicates: record all');
  });

  it("default length: the window's duration, 1h when it names none, as the runtime plans an event without an end", () => {
    expect(calendar.kind === 'ical' && calendar.defaultDuration).toBeFalsy();
    const parsed = parseScheduleYaml('windows:\n  - id: newsroom\n    ical: newsroom.ics\n');
    if (!parsed.ok) throw new Error('fixture invalid');
    // the reader's default for an event without an end is the window's duration (feed-plans.ts)
    expect(parsed.config.windows[0].duration).toBe(parseDuration(FEED_WINDOW_DEFAULTS.duration));
    expect(parsed.config.windows[0].duration).toBe(3600);
    expect(shownDefault(label, 'default_duration')).toBe("the window's duration (1h unless it names one)");
  });

  it('checkboxes: all-day events and new only start unticked, as the runtime reads them', () => {
    expect(calendar.kind === 'ical' && calendar.allDay).toBe(FEED_WINDOW_DEFAULTS.all_day);
    expect(FEED_WINDOW_DEFAULTS.all_day).toBe(false);
    const rules = compileGuideMatch({});
    if (typeof rules === 'string') throw new Error(rules);
    expect(rules.newOnly).toBe(FEED_WINDOW_DEFAULTS.new_only);
    expect(FEED_WINDOW_DEFAULTS.new_only).toBe(false);
  });
});

describe('the re-record fields state the runtime defaults', () => {
  it('within and min_lost: the placeholders are what `rerecord: true` means to the runtime', () => {
    const parsed = parseScheduleYaml('windows:\n  - { id: drama, xmltv: guide.xml, rerecord: true }\n');
    if (!parsed.ok) throw new Error('fixture invalid');
    const rule = parsed.config.windows[0].rerecord;
    const within = shownDefault(label, 'rerecord_within');
    const lost = shownDefault(label, 'rerecord_min_lost');
    expect([within, lost]).toEqual(['default: 7d', 'default: 10%']);
    expect(parseDuration(within.replace('default: ', ''))).toBe(rule?.within);
    expect(Number.parseFloat(lost.replace('default: ', '')) / 100).toBe(rule?.minLost);
  });
});
