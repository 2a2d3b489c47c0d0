import type { FeedReader } from './feed';
import { type CalendarOptions, expandCalendar } from './ical';
import { openBody } from './stream-body';
import { type GuideOptions, readGuide } from './xmltv';

/** A calendar feed's body (UTF-8, RFC 5545 3.1.4; gzip by its bytes) expanded with the window's options. */
export function calendarReader(opts: CalendarOptions): FeedReader {
  return async (open) => {
    const decoder = new TextDecoder('utf-8', { fatal: true });
    let text = '';
    try {
      for await (const chunk of openBody(open())) text += decoder.decode(chunk, { stream: true });
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
    }
    return expandCalendar(text, opts);
  };
}

/** A guide feed's body (plain or gzip) read streaming with the window's rules. */
export function guideReader(opts: GuideOptions): FeedReader {
  return (open) => readGuide(open(), opts);
}
