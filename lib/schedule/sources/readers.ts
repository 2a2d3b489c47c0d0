import type { FeedReader } from './feed';
import { readGuideOffThread } from './guide-worker';
import { type CalendarOptions, expandCalendar } from './ical';
import { boundTexts, type SourceResult } from './occurrence';
import { BodyTooLarge, formatBytes, openBody } from './stream-body';
import type { GuideOptions } from './xmltv';

/**
 * Bytes of calendar read at the most, counted after gunzip: a calendar is held whole to be parsed
 * (guides are streamed, see MAX_GUIDE_BYTES).
 */
export const MAX_CALENDAR_BYTES = 16 * 1024 * 1024;
/** ms a guide is read for at the most (its fetch has its own limit). */
export const GUIDE_READ_TIMEOUT_MS = 120_000;

/**
 * A calendar feed's body (UTF-8, RFC 5545 3.1.4; gzip by its bytes) expanded with the window's options,
 * by expandCalendar or another expander (one that runs it off the event loop). Its titles,
 * descriptions and locations are cut to MAX_TEXT (see boundTexts).
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
      for await (const chunk of openBody(input, MAX_CALENDAR_BYTES)) {
        text += decoder.decode(chunk, { stream: true });
      }
      text += decoder.decode();
    } catch (error) {
      const code = (error as { code?: string }).code;
      const why =
        error instanceof BodyTooLarge
          ? `The calendar is larger than ${formatBytes(MAX_CALENDAR_BYTES)} (counted after gunzip); it is refused.`
          : code === 'ERR_ENCODING_INVALID_ENCODED_DATA' || error instanceof TypeError
            ? 'The calendar is not UTF-8 text.'
            : code === 'Z_DATA_ERROR' || code === 'Z_BUF_ERROR'
              ? 'The calendar is gzip data that is corrupt or cut off.'
              : `The calendar cannot be read: ${error instanceof Error ? error.message : String(error)}.`;
      return { occurrences: [], problems: [], error: why };
    } finally {
      input.destroy();
    }
    return boundTexts(await expand(text, opts), 'event');
  };
}

/**
 * A guide feed's body (plain or gzip) read streaming with the window's rules, in a worker
 * thread with a bounded heap (see readGuideOffThread), `timeoutMs` at the most.
 */
export function guideReader(opts: GuideOptions, timeoutMs = GUIDE_READ_TIMEOUT_MS, signal?: AbortSignal): FeedReader {
  return (open) => readGuideOffThread(open, opts, timeoutMs, undefined, signal);
}
