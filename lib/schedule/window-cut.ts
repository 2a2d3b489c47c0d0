/**
 * The windows of a schedule's YAML text, found by reading its lines rather
 * than by parsing it: the yaml parser takes seconds over a document of 20,000
 * windows, and the editor's preview needs the first windows, a few at a time,
 * and a count of the rest.
 */
interface WindowLayout {
  /** start (offset and 1-based line) of each item of the top-level `windows:` block list */
  items: { at: number; line: number }[];
  /** where the list ends: the offset and line of the first line after it (the text's end when nothing follows) */
  endAt: number;
  endLine: number;
}

/** A part of the text: the lines before the list, some of its items, maybe what follows it. */
export interface TextPart {
  text: string;
  /** the items' lines start at this line of `text`, `shift` lines later in the whole text */
  fromLine: number;
  shift: number;
  /** what follows the list starts at this line of `text` (Infinity: not in the part), `tailShift` lines later */
  tailFromLine: number;
  tailShift: number;
}

const NEWLINE = 10;
const SPACE = 32;
const HASH = 35;
const DASH = 45;
const CR = 13;

/** Lines read between two points where the caller may give the event loop a turn. */
const LINES_PER_STEP = 5_000;

/**
 * Where the items of the top-level block list `windows:` start, read line by
 * line. Undefined when there is no such list (a flow list `[...]`, a quoted
 * key, no windows): the caller then parses the whole text.
 *
 * An item starts where a line at the list's indentation starts with "- "
 * (or is "-" alone); the list ends at the first line indented less, or as
 * much but without the dash (the next top-level key). YAML indents every
 * line inside an item deeper than its dash, block scalars and multi-line
 * values included, so a part always holds whole items. Each `yield` is a
 * point where the caller may give the event loop a turn.
 */
export function* scanWindows(text: string): Generator<void, WindowLayout | undefined> {
  let pos = 0;
  let line = 1;
  let inList = false;
  let itemIndent = -1;
  const items: WindowLayout['items'] = [];
  while (pos < text.length) {
    const nl = text.indexOf('\n', pos);
    const eol = nl < 0 ? text.length : nl;
    let first = pos;
    while (first < eol && text.charCodeAt(first) === SPACE) first++;
    const indent = first - pos;
    const c = first < eol ? text.charCodeAt(first) : NEWLINE;
    if (c !== NEWLINE && c !== CR && c !== HASH) {
      if (!inList) {
        if (indent === 0 && text.startsWith('windows:', pos)) {
          if (!restIsBlank(text, pos + 'windows:'.length, eol)) return undefined;
          inList = true;
        }
      } else {
        const next = first + 1 < eol ? text.charCodeAt(first + 1) : NEWLINE;
        const dash = c === DASH && (next === SPACE || next === NEWLINE || next === CR);
        if (itemIndent < 0) {
          if (!dash) return undefined;
          itemIndent = indent;
        }
        if (indent < itemIndent || (indent === itemIndent && !dash)) return { items, endAt: pos, endLine: line };
        if (indent === itemIndent) items.push({ at: pos, line });
      }
    }
    line++;
    if (nl < 0) break;
    pos = nl + 1;
    if (line % LINES_PER_STEP === 0) yield;
  }
  return items.length === 0 ? undefined : { items, endAt: text.length, endLine: line };
}

/**
 * The text with only the items `from` to `to` (exclusive) of the list: the
 * lines before the list, those items, and, with `tail`, what follows the list.
 */
export function textWith(text: string, layout: WindowLayout, from: number, to: number, tail: boolean): TextPart {
  const { items } = layout;
  const start = items[from];
  const end = to < items.length ? items[to] : { at: layout.endAt, line: layout.endLine };
  const fromLine = items[0].line;
  const tailFromLine = fromLine + (end.line - start.line);
  return {
    text: text.slice(0, items[0].at) + text.slice(start.at, end.at) + (tail ? text.slice(layout.endAt) : ''),
    fromLine,
    shift: start.line - fromLine,
    tailFromLine: tail ? tailFromLine : Number.POSITIVE_INFINITY,
    tailShift: layout.endLine - tailFromLine,
  };
}

/** A line of a part, in the whole text. */
export function lineInWhole(part: TextPart, line: number): number {
  if (line >= part.tailFromLine) return line + part.tailShift;
  return line >= part.fromLine ? line + part.shift : line;
}

function restIsBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c === HASH) return true;
    if (c !== SPACE && c !== CR) return false;
  }
  return true;
}
