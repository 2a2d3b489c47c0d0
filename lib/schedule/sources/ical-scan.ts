/**
 * A calendar's text cut into its events before anything is parsed: each
 * VEVENT is parsed on its own, when its UID's turn comes, so that a large
 * calendar is never held as one parsed tree (the text of 26 MB of single
 * events parsed whole took more than a 512 MB heap), and one broken event
 * cannot take the others with it.
 *
 * The cut follows BEGIN and END lines as a stack: an END that closes nothing
 * open (a stray `END:VTODO` inside a VEVENT) is left out of the text and
 * named; an END that closes a component opened further out closes the ones
 * left open inside it, and those are named too.
 */

/** One VEVENT of the text: where it is, its UID as written, and lines to leave out of it. */
export interface EventBlock {
  start: number;
  end: number;
  /** 1-based line of its BEGIN:VEVENT */
  line: number;
  uid: string | undefined;
  /** [start, end) ranges of the text inside the block that are not part of it (stray END lines) */
  cuts?: [number, number][];
}

export interface ScannedCalendar {
  events: EventBlock[];
  /** the calendar without its events: properties, VTIMEZONEs, other components */
  rest: string;
  /** a sentence per structural problem, each naming its line */
  problems: string[];
}

const COMPONENT_LINE = /^(BEGIN|END):([A-Za-z0-9-]+)[ \t]*\r?$/gim;

interface Open {
  name: string;
  start: number;
  line: number;
  cuts?: [number, number][];
}

export function scanCalendar(text: string): ScannedCalendar {
  const events: EventBlock[] = [];
  const problems: string[] = [];
  const rest: string[] = [];
  const stack: Open[] = [];
  let restFrom = 0;
  let line = 1;
  let counted = 0;
  COMPONENT_LINE.lastIndex = 0;
  for (let m = COMPONENT_LINE.exec(text); m !== null; m = COMPONENT_LINE.exec(text)) {
    line += countNewlines(text, counted, m.index);
    counted = m.index;
    const lineEnd = endOfLine(text, m.index + m[0].length);
    const kind = m[1].toUpperCase();
    const name = m[2].toUpperCase();
    if (kind === 'BEGIN') {
      // events do not nest: a BEGIN:VEVENT inside one means the one before was never closed
      const open = name === 'VEVENT' ? stack.findIndex((o) => o.name === 'VEVENT') : -1;
      if (open >= 0) unclosed(stack.splice(open), `BEGIN:VEVENT`, m.index);
      stack.push({ name, start: m.index, line });
      continue;
    }
    const at = stack.findLastIndex((o) => o.name === name);
    if (at < 0) {
      // closes nothing open: left out of the text (of its event, or of the rest)
      problems.push(`Line ${line}: END:${name} closes no BEGIN:${name}; the line is ignored.`);
      const event = stack.find((o) => o.name === 'VEVENT');
      if (event) {
        event.cuts ??= [];
        event.cuts.push([m.index, lineEnd]);
      } else {
        rest.push(text.slice(restFrom, m.index));
        restFrom = lineEnd;
      }
      continue;
    }
    if (at < stack.length - 1) unclosed(stack.splice(at + 1), `END:${name}`, m.index);
    const closed = stack.pop() as Open;
    if (name !== 'VEVENT' || stack.some((o) => o.name === 'VEVENT')) continue;
    const block: EventBlock = { start: closed.start, end: lineEnd, line: closed.line, uid: undefined };
    if (closed.cuts) block.cuts = closed.cuts.sort((a, b) => a[0] - b[0]);
    block.uid = uidOf(blockText(text, block));
    events.push(block);
    rest.push(text.slice(restFrom, closed.start));
    restFrom = lineEnd;
  }
  rest.push(text.slice(restFrom));
  return { events, rest: rest.join(''), problems };

  /**
   * Components left open when `by` (at `index`) closes or opens something around them: named. Inside
   * an event, their BEGIN lines are cut from it (their lines are read as the event's); an event left
   * open is cut from the text with what it holds, and left out.
   */
  function unclosed(opened: Open[], by: string, index: number): void {
    const event = stack.find((o) => o.name === 'VEVENT');
    for (const open of opened) {
      problems.push(
        `Line ${open.line}: BEGIN:${open.name} has no END:${open.name} (${by} on line ${line} comes first).`,
      );
      if (event) {
        event.cuts ??= [];
        event.cuts.push([open.start, endOfLine(text, open.start)]);
      }
    }
    if (event) return;
    const outer = opened[0];
    if (outer.name === 'VEVENT') problems.push(`The event of line ${outer.line} is left out: it is not closed.`);
    rest.push(text.slice(restFrom, outer.start));
    restFrom = index;
  }
}

/** The text of one event, without the lines cut out of it. */
export function blockText(text: string, block: EventBlock): string {
  if (!block.cuts) return text.slice(block.start, block.end);
  const parts: string[] = [];
  let from = block.start;
  for (const [s, e] of block.cuts) {
    parts.push(text.slice(from, s));
    from = e;
  }
  parts.push(text.slice(from, block.end));
  return parts.join('');
}

const UID_LINE = /^UID(?:;[^:\r\n]*)?:(.*(?:\r?\n[ \t].*)*)/im;

/** The UID as written (unfolded, unescaped), or undefined: groups an event with its overrides before parsing. */
function uidOf(block: string): string | undefined {
  const raw = UID_LINE.exec(block)?.[1];
  if (raw === undefined) return undefined;
  return raw
    .replace(/\r?\n[ \t]/g, '')
    .replace(/\r$/, '')
    .replace(/\\([\\;,nN])/g, (_m, c: string) => (c === 'n' || c === 'N' ? '\n' : c));
}

function endOfLine(text: string, from: number): number {
  const nl = text.indexOf('\n', from);
  return nl < 0 ? text.length : nl + 1;
}

function countNewlines(text: string, from: number, to: number): number {
  let n = 0;
  for (let i = text.indexOf('\n', from); i >= 0 && i < to; i = text.indexOf('\n', i + 1)) n++;
  return n;
}
