import { quoteShort } from '../../quote';

/** A rule's regular expression from its source text, or the sentence that says why it does not compile. */
export function compileRegex(source: string, label: string): RegExp | string {
  try {
    return new RegExp(source);
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^Invalid regular expression: /, '') : String(error);
    return `The ${label} pattern ${quoteShort(source)} is not a valid regular expression (${why}).`;
  }
}

/** The calendar's match rule compiled, or the sentence naming what is wrong with it. */
export function compileMatch(match: { title?: string } | undefined): { title?: RegExp } | string {
  if (match?.title === undefined || match.title === '') return {};
  const title = compileRegex(match.title, 'title');
  return typeof title === 'string' ? title : { title };
}

/** Whether [start, end) and [from, to) share an instant: an occurrence already running at `from` counts. */
export function overlaps(start: number, end: number, from: number, to: number): boolean {
  return start < to && end > from;
}
