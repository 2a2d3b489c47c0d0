import type { AsRunOutcome, AsRunRecord } from '../../../lib/asrun/record';
import { el, setText } from './dom';

const OUTCOMES: readonly AsRunOutcome[] = ['recorded', 'overran', 'partial', 'missed', 'skipped', 'cancelled', 'open'];
const PATH = 'media-spaces/as-run';

/**
 * The "As-run" view of the tab: the slots of a day in a zone, as the as-run
 * log recorded them (scheduled and actual times, channels, the follow-up
 * job), filtered by outcome and by the toolbar's schedule, each discrepancy in red with its
 * reason, and the day's export as CSV or JSON Lines. Everything shown is
 * text (textContent): titles and reasons come from schedules and the service.
 */
export class AsRunView {
  readonly root = el('div', 'ms-ar');
  private readonly day = el('input', 'ms-ar-day');
  private readonly zone = el('input', 'ms-ar-zone');
  private readonly outcome = el('select', 'ms-ar-outcome');
  private readonly status = el('div', 'ms-ar-status');
  private readonly list = el('div', 'ms-ar-list');
  private asked = 0;

  constructor(
    /** the toolbar's schedule (a node id), '' for every schedule */
    private readonly schedule: () => string,
  ) {
    this.day.type = 'date';
    this.day.value = localDate(new Date());
    this.zone.type = 'text';
    this.zone.value = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
    this.zone.title = 'IANA time zone the day is read in';
    this.outcome.append(new Option('every outcome', ''), ...OUTCOMES.map((o) => new Option(o, o)));
    const controls = el('div', 'ms-ar-controls');
    controls.append(this.day, this.zone, this.outcome);
    const exports = el('div', 'ms-ar-exports');
    exports.append(this.exportButton('csv', 'Export CSV'), this.exportButton('jsonl', 'Export JSON Lines'));
    this.root.append(controls, exports, this.status, this.list);
    for (const input of [this.day, this.zone, this.outcome]) {
      input.addEventListener('change', () => this.load());
    }
  }

  private query(format: 'json' | 'csv' | 'jsonl'): string {
    const q = new URLSearchParams({ day: this.day.value, zone: this.zone.value.trim() || 'UTC', format });
    if (this.outcome.value) q.set('outcome', this.outcome.value);
    const schedule = this.schedule();
    if (schedule) q.set('schedule', schedule);
    return `${PATH}?${q}`;
  }

  /** Reads the day again (shown, or its filters changed). */
  load(): void {
    const asked = ++this.asked;
    setText(this.status, 'Loading…');
    $.ajax({ url: this.query('json'), method: 'GET', dataType: 'json', cache: false }).then(
      (body: { records: AsRunRecord[]; warnings?: string[] }) => {
        if (asked === this.asked) this.render(body.records, this.zone.value.trim() || 'UTC', body.warnings ?? []);
      },
      (xhr: JQuery.jqXHR) => {
        if (asked !== this.asked) return;
        const message = (xhr.responseJSON as { error?: { message?: string } } | undefined)?.error?.message;
        this.list.replaceChildren();
        setText(this.status, `As-run log unavailable: ${message ?? (xhr.statusText || 'no answer')}`);
      },
    );
  }

  private render(records: AsRunRecord[], zone: string, warnings: string[]): void {
    const off = records.filter((r) => r.discrepancy).length;
    const counted =
      records.length === 0
        ? 'No slot in the log for this day.'
        : `${records.length} slot${records.length === 1 ? '' : 's'}, ${off} with a discrepancy`;
    setText(this.status, [counted, ...warnings].join(' '));
    const bySlot = new Map(records.map((r) => [r.slot, r]));
    const again = new Map(records.filter((r) => r.rerecordOf).map((r) => [r.rerecordOf as string, r]));
    this.list.replaceChildren(
      ...records.map((r) => {
        const item = row(r, zone);
        const link = rerecordLink(r, bySlot, again, zone, (slot) => this.reveal(slot));
        if (link) item.append(link);
        return item;
      }),
    );
  }

  /** Scrolls to the row of `slot` and marks it a moment (a re-record's link to its first airing, and back). */
  private reveal(slot: string): void {
    const target = [...this.list.querySelectorAll<HTMLElement>('.ms-ar-item')].find((e) => e.dataset.slot === slot);
    if (!target) return;
    target.scrollIntoView({ block: 'nearest' });
    target.classList.add('ms-ar-flash');
    setTimeout(() => target.classList.remove('ms-ar-flash'), 1500);
  }

  /**
   * The export through jQuery (which carries the signed-in user's token, as a
   * link would not), saved as a file from the answer.
   */
  private exportButton(format: 'csv' | 'jsonl', label: string): HTMLButtonElement {
    const button = el('button', `red-ui-button red-ui-button-small ms-ar-export-${format}`, label);
    button.type = 'button';
    button.addEventListener('click', () => {
      $.ajax({ url: this.query(format), method: 'GET', dataType: 'text', cache: false }).then(
        (text: string, _status: string, xhr: JQuery.jqXHR) => {
          const url = URL.createObjectURL(
            new Blob([text], { type: format === 'csv' ? 'text/csv' : 'application/x-ndjson' }),
          );
          const a = el('a', 'ms-ar-download');
          a.href = url;
          // the name the runtime gives the export (schedule, day, zone, outcome, when): distinct per export
          const given = /filename="([^"]+)"/.exec(xhr.getResponseHeader('content-disposition') ?? '')?.[1];
          a.download = given ?? `as-run-${this.day.value}.${format}`;
          document.body.append(a);
          a.click();
          a.remove();
          setTimeout(() => URL.revokeObjectURL(url), 10_000);
        },
        (xhr: JQuery.jqXHR) => setText(this.status, `Export failed: ${xhr.statusText || xhr.status}`),
      );
    });
    return button;
  }
}

/**
 * The line that links a re-record and the slot it records again: "re-record of the airing at 18:00:00" on the
 * new slot, "recorded again at 20:00:00 (29 Nov)" on the first; a link when the other is in the list.
 */
function rerecordLink(
  r: AsRunRecord,
  bySlot: ReadonlyMap<string, AsRunRecord>,
  again: ReadonlyMap<string, AsRunRecord>,
  zone: string,
  reveal: (slot: string) => void,
): HTMLElement | undefined {
  const other = r.rerecordOf ? bySlot.get(r.rerecordOf) : again.get(r.slot);
  if (!r.rerecordOf && !other) return undefined;
  const line = el('div', 'ms-ar-rerecord');
  const when = other ? `${clock(other.scheduled.start, zone, true)} (${dayOf(other.scheduled.start, zone)})` : '';
  const words = r.rerecordOf
    ? other
      ? `re-record of the airing at ${when}`
      : `re-record of an earlier airing (${r.rerecordOf})`
    : `recorded again at ${when}`;
  if (!other) {
    line.textContent = words;
    return line;
  }
  const a = el('a', 'ms-ar-rerecord-link', words);
  a.href = '#';
  a.dataset.slot = other.slot;
  a.addEventListener('click', (e) => {
    e.preventDefault();
    reveal(other.slot);
  });
  line.append(a);
  return line;
}

function dayOf(iso: string, zone: string): string {
  try {
    return new Intl.DateTimeFormat('en-GB', { timeZone: zone, day: 'numeric', month: 'short' }).format(new Date(iso));
  } catch {
    return iso.slice(0, 10);
  }
}

/** One slot: times, schedule and window, programme, outcome; its discrepancy in red. */
function row(r: AsRunRecord, zone: string): HTMLElement {
  const item = el('div', `ms-ar-item ms-ar-${r.outcome}${r.discrepancy ? ' ms-ar-off' : ''}`);
  item.dataset.slot = r.slot;
  item.dataset.outcome = r.outcome;
  const top = el('div', 'ms-ar-top');
  top.append(
    el('span', 'ms-ar-time', clockSpan(r.scheduled.start, r.scheduled.end, zone)),
    el('span', 'ms-ar-title', [r.occurrence.title, r.occurrence.episode].filter(Boolean).join(' · ') || r.window.id),
    el('span', 'ms-ar-badge', r.outcome),
  );
  const actual = r.actual.start
    ? `recorded ${r.actual.end ? clockSpan(r.actual.start, r.actual.end, zone) : `${clock(r.actual.start, zone, true)}–…`}`
    : 'nothing recorded';
  const channels = r.channels.length > 0 ? ` · channel ${r.channels.map((c) => c.id).join(', ')}` : '';
  const job = r.job ? ` · follow-up ${r.job.state}` : '';
  item.append(top, el('div', 'ms-ar-detail', `${r.schedule.name} / ${r.window.id} · ${actual}${channels}${job}`));
  if (r.discrepancy) item.append(el('div', 'ms-ar-reason', r.discrepancy));
  return item;
}

/**
 * "18:00–19:00"; "19:07:00–19:07:40": with seconds when minutes alone would hide them (a 40-second slot, a
 * start at 19:15:30), as the activity's times are.
 */
function clockSpan(startIso: string, endIso: string, zone: string): string {
  const seconds = [startIso, endIso].some((iso) => Date.parse(iso) % 60_000 !== 0);
  return `${clock(startIso, zone, seconds)}–${clock(endIso, zone, seconds)}`;
}

function clock(iso: string, zone: string, seconds: boolean): string {
  try {
    return new Intl.DateTimeFormat('en-GB', {
      timeZone: zone,
      hour: '2-digit',
      minute: '2-digit',
      ...(seconds ? { second: '2-digit' } : {}),
      hourCycle: 'h23',
    }).format(new Date(iso));
  } catch {
    return iso;
  }
}

function localDate(d: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
