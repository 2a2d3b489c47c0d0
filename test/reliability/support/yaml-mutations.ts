import { hugeString } from './fuzz-values';
import type { SeededRandom } from './seeded-random';

/**
 * Valid schedule documents and mutations of them: lines deleted, duplicated,
 * swapped or re-indented, values swapped between lines or replaced, random
 * characters inserted, the text cut short, keys renamed, YAML features
 * (anchors, aliases, tags, flow collections) and prototype-pollution keys
 * added. Each mutation is named, so a failing case can be reproduced by hand.
 */

export const VALID_SCHEDULES = [
  `schedule_id: studio-a
timezone: Europe/London
windows:
  - id: evening-news
    name: Evening news
    cron: "0 18 * * mon-fri"
    timezone: Europe/London
    duration: 1h30m
    enabled: true
    channel:
      name: "News {{slot.date}}"
      description: Evening bulletin
      source_id: 7f3c2a10-0000-4000-8000-000000000009
      expected_properties: '{"resolution": "1080p"}'
      continuous_recording: false
      recording_duration: 2
      region: eu-west-1
      tags: [news, evening]
    followup:
      workflow_id: aaaaaaaa-0000-4000-8000-000000000001
      job_name: "Archive {{window.name}} {{slot.date}}"
      variables:
        Programme: "{{window.name}}"
        Start: "10:00:00:00@25"
      media_nicknames:
        Recording: "{{channel.recording.outputs[0].location_url}}"
      labels:
        qc: { Level: 4 }
  - id: late-show
    cron: "30 23 * * fri,sat"
    timezone: America/New_York
    duration: PT45M
    channel: { name: Late show, tags: [late] }
`,
  `windows:
  - id: w1
    cron: "*/15 * * * *"
    duration: 600
  - id: w2
    name: Weekly review
    cron: "0 9 * * 1"
    timezone: UTC
    duration: 2h
    enabled: false
    followup:
      workflow: QC check
      attachments:
        subs: s3://bucket/subs.srt
`,
  `# a schedule with every field quoted and a seconds field
schedule_id: "ops.main_1"
timezone: "Asia/Tokyo"
windows:
  - id: "morning"
    name: "Morning show"
    cron: "0 0 7 * * *"
    duration: "90m"
    channel:
      name: "Morning {{slot.local_start}}"
      recording_duration: "{{window.duration_hours}}"
      continuous_recording: "true"
`,
];

const RANDOM_CHARS = [
  ':',
  '-',
  ' ',
  '  ',
  '\t',
  '#',
  '"',
  "'",
  '{',
  '}',
  '[',
  ']',
  ',',
  '&',
  '*',
  '!',
  '|',
  '>',
  '%',
  '@',
  '`',
  '?',
  '\n',
  '\r\n',
  '\u0000',
  '\ufeff',
  '\u2028',
  '\ud800',
  'é',
  '😀',
  '中',
  '{{',
  '}}',
  '0',
  'x',
];

const REPLACEMENT_VALUES = [
  '',
  '~',
  'null',
  'true',
  'no',
  'yes',
  '0',
  '-1',
  '1e309',
  '.nan',
  '.inf',
  '0x1F',
  '0o17',
  '2024-01-01',
  '12:30',
  '"61 * * * *"',
  '"0 25 * * *"',
  '"* * * * * * *"',
  '"@hourly"',
  '"0 18 * * mon-sun"',
  '"0 18 31 2 *"',
  'Mars/Olympus_Mons',
  'Europe/london',
  'UTC+2',
  '-90m',
  '0s',
  '32d',
  'P1Y',
  '"{{window.nope}}"',
  '"{{channel.id}}"',
  '"{{slot.date"',
  '[]',
  '{}',
  '[1, 2]',
  '{a: 1}',
  '!!binary aGVsbG8=',
  '!!str 5',
  '!!int "x"',
  '!custom tag',
  '&anchor value',
  '*nowhere',
  '|\n  block\n  text',
  '>-\n  folded',
  '"unterminated',
  "'single",
  '日本語',
  '😀😀😀',
  'a'.repeat(300),
  // long values that make a backtracking pattern slow (a template opened and never closed took minutes)
  `"{{${' '.repeat(20_000)}"`,
  `"{{ window.name${' '.repeat(20_000)}x"`,
  `${'1'.repeat(20_000)}x`,
  `${'1d'.repeat(10_000)}x`,
  `"${'*/'.repeat(10_000)}"`,
];

const KEY_NAMES = [
  'windows',
  'window',
  'id',
  'cron',
  'crons',
  'duration',
  'timezone',
  'time_zone',
  'channel',
  'followup',
  'follow_up',
  'name',
  'enabled',
  'tags',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '<<',
  '? complex',
  '"quoted key"',
  '',
];

export interface Mutated {
  text: string;
  /** The mutations applied, in order. */
  steps: string[];
}

/**
 * The key-value patterns below are for document lines; on a line of thousands of characters
 * (a mutation can insert one) their backtracking would take forever, so such lines are skipped.
 */
const PATTERN_LINE_MAX = 1_000;
const matchLine = (re: RegExp, line: string | undefined) =>
  line !== undefined && line.length <= PATTERN_LINE_MAX ? re.exec(line) : null;

function lineOf(text: string, r: SeededRandom): { lines: string[]; at: number } {
  const lines = text.split('\n');
  return { lines, at: r.int(0, Math.max(0, lines.length - 1)) };
}

/** One named mutation of the text. */
function mutateOnce(text: string, r: SeededRandom): { text: string; step: string } {
  const kind = r.int(0, 13);
  const { lines, at } = lineOf(text, r);
  switch (kind) {
    case 0: {
      lines.splice(at, 1);
      return { text: lines.join('\n'), step: `delete line ${at + 1}` };
    }
    case 1: {
      lines.splice(at, 0, lines[at] ?? '');
      return { text: lines.join('\n'), step: `duplicate line ${at + 1}` };
    }
    case 2: {
      const other = r.int(0, Math.max(0, lines.length - 1));
      [lines[at], lines[other]] = [lines[other], lines[at]];
      return { text: lines.join('\n'), step: `swap lines ${at + 1} and ${other + 1}` };
    }
    case 3: {
      // swap the values of two "key: value" lines
      const withValue = lines
        .map((l, i) => ({ l, i, m: matchLine(/^(\s*-?\s*[^:#]+:)\s+(.+)$/, l) }))
        .filter((x) => x.m !== null);
      if (withValue.length < 2) return { text, step: 'swap values (none)' };
      const a = r.pick(withValue);
      const b = r.pick(withValue);
      lines[a.i] = `${a.m?.[1]} ${b.m?.[2]}`;
      lines[b.i] = `${b.m?.[1]} ${a.m?.[2]}`;
      return { text: lines.join('\n'), step: `swap values of lines ${a.i + 1} and ${b.i + 1}` };
    }
    case 4: {
      const m = matchLine(/^(\s*-?\s*[^:#]+:)\s*(.*)$/, lines[at]);
      const value = r.pick(REPLACEMENT_VALUES);
      if (!m) {
        lines[at] = value;
        return { text: lines.join('\n'), step: `replace line ${at + 1} by ${JSON.stringify(value)}` };
      }
      lines[at] = `${m[1]} ${value}`;
      return { text: lines.join('\n'), step: `value of line ${at + 1} := ${JSON.stringify(value)}` };
    }
    case 5: {
      const pos = r.int(0, text.length);
      const chars = Array.from({ length: r.int(1, 4) }, () => r.pick(RANDOM_CHARS)).join('');
      return { text: text.slice(0, pos) + chars + text.slice(pos), step: `insert ${JSON.stringify(chars)} at ${pos}` };
    }
    case 6: {
      const pos = r.int(0, Math.max(0, text.length - 1));
      return { text: text.slice(0, pos) + text.slice(pos + r.int(1, 8)), step: `delete characters at ${pos}` };
    }
    case 7: {
      const delta = r.pick([-4, -2, -1, 1, 2, 3, 4]);
      const line = lines[at] ?? '';
      lines[at] = delta > 0 ? ' '.repeat(delta) + line : line.replace(new RegExp(`^ {0,${-delta}}`), '');
      return { text: lines.join('\n'), step: `indent line ${at + 1} by ${delta}` };
    }
    case 8: {
      const cut = r.int(0, text.length);
      return { text: text.slice(0, cut), step: `cut at ${cut}` };
    }
    case 9: {
      const m = matchLine(/^(\s*-?\s*)([^:#\s][^:#]*):(.*)$/, lines[at]);
      if (!m) return { text, step: 'rename key (none)' };
      const key = r.pick(KEY_NAMES);
      lines[at] = `${m[1]}${key}:${m[3]}`;
      return { text: lines.join('\n'), step: `rename key on line ${at + 1} to ${JSON.stringify(key)}` };
    }
    case 10: {
      const indent = (/^(\s*)/.exec(lines[at] ?? '')?.[1] ?? '').slice(0, 40);
      const extra = r.pick([
        `${indent}__proto__: { polluted: yes }`,
        `${indent}constructor: { prototype: { polluted: yes } }`,
        `${indent}<<: { polluted: yes }`,
        `${indent}toString: 5`,
        `${indent}hasOwnProperty: 5`,
        `${indent}? [a, b]\n${indent}: complex key`,
        `${indent}x: &a [*a]`,
        `${indent}bomb: &b [&c [x, x, x, x, x, x, x, x, x], *c, *c, *c, *c, *c, *c, *c, *c]`,
      ]);
      lines.splice(at, 0, extra);
      return { text: lines.join('\n'), step: `insert ${JSON.stringify(extra)} before line ${at + 1}` };
    }
    case 11: {
      // a window list entry turned into something else
      const replacement = r.pick(['windows: 5', 'windows: ~', 'windows: "text"', 'windows: {}', 'windows: [1, 2]']);
      const i = lines.findIndex((l) => l.startsWith('windows:'));
      if (i < 0) return { text, step: 'replace windows (none)' };
      lines[i] = replacement;
      return { text: lines.join('\n'), step: `line ${i + 1} := ${replacement}` };
    }
    case 12: {
      const value = r.chance(0.05) ? hugeString(r).slice(0, 200_000) : r.text(r.int(1, 30), RANDOM_CHARS);
      lines.splice(at, 0, value);
      return { text: lines.join('\n'), step: `insert line of ${value.length} random characters before ${at + 1}` };
    }
    default: {
      // the same document in another line-ending or with a BOM or tabs
      const variant = r.pick(['crlf', 'bom', 'tabs', 'document-markers']);
      if (variant === 'crlf') return { text: text.replace(/\n/g, '\r\n'), step: 'CRLF line endings' };
      if (variant === 'bom') return { text: `\ufeff${text}`, step: 'byte order mark' };
      if (variant === 'tabs') return { text: text.replace(/^ {2}/gm, '\t'), step: 'tabs for indentation' };
      return { text: `---\n${text}\n...\n---\nwindows: []\n`, step: 'two documents' };
    }
  }
}

/** A valid document with 1 to `max` mutations (or none, now and then). */
export function mutateSchedule(r: SeededRandom, max = 4): Mutated {
  let text = r.pick(VALID_SCHEDULES);
  const steps: string[] = [];
  const n = r.chance(0.05) ? 0 : r.int(1, max);
  for (let i = 0; i < n; i++) {
    const next = mutateOnce(text, r);
    text = next.text;
    steps.push(next.step);
  }
  return { text, steps };
}
