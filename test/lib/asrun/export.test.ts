import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { type AsRunEntry, CSV_COLUMNS, foldRecords, recordsToCsv, recordsToJsonl } from '../../../lib/asrun';
import { csvCell, exportFileName } from '../../../lib/asrun/export';
import { SlotStory } from '../../support/slot-transitions';

/** Ten slots of one evening in Paris: seven recorded, one missed, one partial, one skipped. */
function evening(): AsRunEntry[] {
  const entries: AsRunEntry[] = [];
  for (let i = 0; i < 10; i++) {
    const start = `2026-11-26T${String(8 + i).padStart(2, '0')}:00:00Z`;
    const s = new SlotStory({
      start,
      title: i === 3 ? '=HYPERLINK("http://evil")' : `Show ${i}, "live"`,
      episode: `E${i}`,
    });
    if (i === 2) s.to('missed', 90, { why: 'create channel failed: 503\nafter 4 attempts', attempts: 4 });
    else if (i === 5) s.to('skipped', -600, { why: '@operator skipped it' });
    else {
      s.to('starting', 0);
      s.to('recording', i === 7 ? 75 : 0.5, { lateBy: i === 7 ? 75 : 0.5, channel: { id: `ch${i}` } });
      if (i === 4) {
        s.to('interrupted', 300, { why: 'continuity fault', channel: { id: `ch${i}` } });
        s.to('recording', 360, { channel: { id: `ch${i}b` } });
      }
      s.to('stopping', 1800);
      s.to('finishing', 1801);
      s.to(i === 4 ? 'partial' : 'finished', 1805, {
        channel: { id: `ch${i}`, outputs: [{ uri: `s3://b/ch${i}.mxf` }] },
        ...(i === 4
          ? {
              why: '-60 s lost to a continuity fault',
              gaps: [{ from: '2026-11-26T12:05:00Z', to: '2026-11-26T12:06:00Z', why: 'continuity fault' }],
            }
          : {}),
      });
    }
    entries.push(...s.published.map((event): AsRunEntry => ({ kind: 'slot', event })));
    if (i === 0)
      entries.push({
        kind: 'job',
        at: start,
        event: { slot: s.slot, job: { id: 'j0', state: 'succeeded', elapsed: 30.5 } },
      });
  }
  return entries;
}

describe('as-run export', () => {
  const records = foldRecords(evening());
  const rows = parse(recordsToCsv(records), { columns: true, relax_quotes: false }) as Record<string, string>[];

  it('CSV: a header and one row per slot that a CSV parser reads back cell for cell', () => {
    expect(records).toHaveLength(10);
    expect(Object.keys(rows[0])).toEqual([...CSV_COLUMNS]);
    expect(rows.map((r) => r.outcome)).toEqual([
      'recorded',
      'recorded',
      'missed',
      'recorded',
      'partial',
      'skipped',
      'recorded',
      'recorded',
      'recorded',
      'recorded',
    ]);
    expect(rows.map((r) => r.slot)).toEqual(records.map((r) => r.slot));
    expect(rows[0]).toMatchObject({
      schedule: 'Evening news',
      window: 'news',
      zone: 'Europe/Paris',
      title: 'Show 0, "live"',
      episode: 'E0',
      scheduled_start: '2026-11-26T09:00:00+01:00',
      scheduled_end: '2026-11-26T09:30:00+01:00',
      programme_start: '2026-11-26T09:01:00+01:00',
      actual_start: '2026-11-26T09:00:00+01:00',
      actual_end: '2026-11-26T09:30:01+01:00',
      late_by_s: '0.5',
      channels: 'ch0',
      outputs: '[{"uri":"s3://b/ch0.mxf"}]',
      job_id: 'j0',
      job_state: 'succeeded',
      job_elapsed_s: '30.5',
      discrepancy: '',
    });
    expect(rows[2]).toMatchObject({
      reason: 'create channel failed: 503\nafter 4 attempts',
      attempts: '4',
      actual_start: '',
    });
    expect(rows[4]).toMatchObject({
      channels: 'ch4 ch4b',
      interruptions: '1',
      gaps: '2026-11-26T13:05:00+01:00/2026-11-26T13:06:00+01:00 continuity fault',
    });
    expect(rows[7].discrepancy).toBe('started 75 s late');
  });

  it('CSV: text a spreadsheet would run as a formula starts with an apostrophe; numbers stay numbers', () => {
    expect(rows[3].title).toBe(`'=HYPERLINK("http://evil")`);
    expect(rows[5].reason).toBe(`'@operator skipped it`);
    expect(rows[4].reason).toBe(`'-60 s lost to a continuity fault`);
    expect(rows[4].late_by_s).toBe('0.5');
  });

  it('CSV: formulas are neutralised after leading white space, in fullwidth forms, and inside a cell a `;` split would cut', () => {
    const titles = [
      `x;=cmd|'/C calc'!A0`,
      ' =1+1',
      '\u00a0@SUM(1)',
      '＝1',
      '＋1',
      '－1',
      '＠SUM(1)',
      '\t=1',
      ' \r=1',
      '\u3000=1',
    ];
    const csv = recordsToCsv(
      titles.map((title, i) => ({ ...records[0], slot: `s${i}`, occurrence: { ...records[0].occurrence, title } })),
    );
    const byComma = parse(csv, { columns: true }) as Record<string, string>[];
    expect(byComma.map((r) => r.title)).toEqual([
      `x;'=cmd|'/C calc'!A0`,
      ...titles.slice(1, -3).map((t) => `'${t}`),
      "'\t'=1",
      "' \r'=1",
      "'\u3000=1",
    ]);
    // a spreadsheet that splits on `;` or a tab: every cell is quoted whole, so no cell starts a formula
    for (const delimiter of [';', '\t']) {
      const cells = (parse(csv, { delimiter, relax_quotes: true, relax_column_count: true }) as string[][]).flat();
      for (const cell of cells) expect(cell.replace(/^[\s\u00a0\u3000"]+/, '')).not.toMatch(/^[=+\-@＝＋－＠]/);
    }
  });

  it('CSV: every cell quoted, empty ones too; ordinary titles come back as they were', () => {
    const titles = [
      'Show 0, "live"',
      'News at 10; late edition',
      '1+1 = 2',
      'Café – Ünïcode ☕',
      "It's 5 o'clock",
      'a\tb',
    ];
    const csv = recordsToCsv(
      titles.map((title, i) => ({ ...records[0], slot: `s${i}`, occurrence: { ...records[0].occurrence, title } })),
    );
    const raw = parse(csv, { raw: true }) as unknown as { raw: string }[];
    for (const line of csv.trimEnd().split('\r\n')) expect(line).toMatch(/^"(?:[^"]|"")*"(?:,"(?:[^"]|"")*")*$/);
    expect(raw).toHaveLength(titles.length + 1);
    expect((parse(csv, { columns: true }) as Record<string, string>[]).map((r) => r.title)).toEqual(titles);
    expect(csvCell(undefined)).toBe('');
    expect(csvCell(-1.5)).toBe('-1.5');
  });

  it('CSV lines end in CRLF, a line break inside a cell is quoted', () => {
    const csv = recordsToCsv(records);
    expect(csv.split('\r\n')).toHaveLength(12);
    expect(csv).toContain('"create channel failed: 503\nafter 4 attempts"');
  });

  it('an export file name says what it holds and when it was taken: two exports never share one', () => {
    const at = new Date('2026-11-26T23:15:02.345Z');
    expect(exportFileName({ day: '2026-11-26', zone: 'Europe/Paris', format: 'csv' }, at)).toBe(
      'as-run_all-schedules_2026-11-26_Europe-Paris_all_exported-20261126T231502Z.csv',
    );
    expect(
      exportFileName(
        { day: '2026-11-26', zone: 'UTC', schedule: 'Évening "news"/../x', outcome: 'missed', format: 'jsonl' },
        at,
      ),
    ).toBe('as-run_Evening-news-x_2026-11-26_UTC_missed_exported-20261126T231502Z.jsonl');
    const names = new Set([
      exportFileName({ day: '2026-11-26', zone: 'UTC', format: 'csv' }, at),
      exportFileName({ day: '2026-11-27', zone: 'UTC', format: 'csv' }, at),
      exportFileName({ day: '2026-11-26', zone: 'Europe/Paris', format: 'csv' }, at),
      exportFileName({ day: '2026-11-26', zone: 'UTC', schedule: 'a', format: 'csv' }, at),
      exportFileName({ day: '2026-11-26', zone: 'UTC', outcome: 'missed', format: 'csv' }, at),
      exportFileName({ day: '2026-11-26', zone: 'UTC', format: 'csv' }, new Date(at.getTime() + 1000)),
    ]);
    expect(names.size).toBe(6);
    for (const n of names) expect(n).toMatch(/^[A-Za-z0-9._-]+$/);
  });

  it('JSON Lines: one record a line', () => {
    const lines = recordsToJsonl(records).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(records);
  });
});
