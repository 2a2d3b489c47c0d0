/**
 * Where a schedule window's dated occurrences come from besides cron: an
 * iCalendar feed (expandCalendar) or an XMLTV programme guide (readGuide),
 * fetched and kept by Feed, configured by the window schemas. The heavy
 * parsers (ical.js, saxes) and undici load on first use.
 */

export { calendarReaderOffThread } from './calendar-worker';
export * from './feed';
export * from './feed-access';
export { resolveFeedFile } from './feed-file';
export { type CalendarOptions, expandCalendar } from './ical';
export * from './occurrence';
export { MAX_PROBLEMS } from './problems';
export { calendarReader, guideReader } from './readers';
export * from './window-config';
export { type GuideMatch, type GuideOptions, parseXmltvTime, readGuide } from './xmltv';
