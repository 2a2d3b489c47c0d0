import type { FeedReader } from './feed';
import { type CalendarOptions, expandCalendar } from './ical';
import type { SourceResult } from './occurrence';
import { openBody } from './stream-body';
import { type GuideOptions, readGuide } from './xmltv';

/** Characters of calendar text read at the most: a calendar is held whole to be parsed (guides are streamed). */
const MAX_CALENDAR_CHARS = 64 * 1024 * 1024;

/**
 * A calendar feed's body (UTF-8, RFC 5545 3.1.4; gzip by its bytes) expanded with the window's options,
 * by expandCalendar or another expander (one that runs it off the event loop).
 */
export function calendarReader(
  opts: CalendarOptions,
  expand: (text: string, opts: CalendarOptions) => SourceResult | Promise<SourceResult> = expandCalendar,
): FeedReader {
  return async (open) => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    const input = open();
    let text = '';
    try {
      for await (const chunk of openBody(input)) {
        text += decoder.decode(chunk, { stream: true });
        if (text.length > MAX_CALENDAR_CHARS) {
          return { occurrences: [], problems: [], error: 'The calendar is larger than 64 MB; it is refused.' };
        }
      }
      text += decoder.decode();
    } catch (error) {
      const code = (error as { code?: string }).code;
      const why =
        code === 'ERR_ENCODING_INVALID_ENCODED_DATA' || error instanceof TypeError
          ? 'The calendar is not UTF-8 text.'
          : code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR'
            ? 'The calendar is gzip data that is corrupt or cut off.'
            : `The calendar cannot be read: ${error instanceof Error ? error.message : String(error)}.`;
      return { occurrences: [], problems: [], error: why };
    } finally {
      input.destroy();
    }
    return expand(text, opts);
  };
}

/** A guide feed's body (plain or gzip) read streaming with the window's rules. */
export function guideReader(opts: GuideOptions): FeedReader {
  return (open) => readGuide(open(), opts);
}
