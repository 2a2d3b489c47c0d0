import { quoteShort } from '../../quote';
import { unsupportedConstruct, unsupportedSentence } from './pattern-syntax';

/**
 * A user's pattern compiled on RE2 (re2js, pure JavaScript): it runs in time
 * linear in the text whatever the pattern, so no title can hold up the thread
 * it runs on. `test` finds the pattern anywhere in the text, as RegExp's does.
 */
export interface TitlePattern {
  test(text: string): boolean;
}

type Re2js = typeof import('re2js');
let re2js: Re2js | undefined;

/** re2js is loaded at the first pattern: flows without one never pay its load (about 16 ms). */
function engine(): Re2js['RE2JS'] {
  re2js ??= require('re2js') as Re2js;
  return re2js.RE2JS;
}

/** A rule's pattern from its source text, or the sentence that says why it is refused. */
export function compileRegex(source: string, label: string): TitlePattern | string {
  const construct = unsupportedConstruct(source);
  if (construct) return unsupportedSentence(label, quoteShort(source), construct);
  const RE2JS = engine();
  try {
    // JavaScript's own escapes (\u00e9, \cA, (?<name>…)) in RE2's spelling
    return RE2JS.compile(RE2JS.translateRegExp(source));
  } catch (error) {
    const why = error instanceof Error ? error.message.replace(/^error parsing regexp: /, '') : String(error);
    return `The ${label} pattern ${quoteShort(source)} is not a valid regular expression (${why}).`;
  }
}

/** The calendar's match rule compiled, or the sentence naming what is wrong with it. */
export function compileMatch(match: { title?: string } | undefined): { title?: TitlePattern } | string {
  if (match?.title === undefined || match.title === '') return {};
  const title = compileRegex(match.title, 'title');
  return typeof title === 'string' ? title : { title };
}

/** Whether [start, end) and [from, to) share an instant: an occurrence already running at `from` counts. */
export function overlaps(start: number, end: number, from: number, to: number): boolean {
  return start < to && end > from;
}
