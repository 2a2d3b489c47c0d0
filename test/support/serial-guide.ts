import type { Simulator } from '../../lib/simulator';

/** XMLTV's time in UTC: YYYYMMDDhhmmss +0000. */
export const xmltvTime = (ms: number) => `${new Date(ms).toISOString().replace(/[-:T]/g, '').slice(0, 14)} +0000`;

/** A guide of one channel airing one episode of "Serial" at each of `airings`, 6 s each (as the window matches it). */
export function serialGuide(
  airings: number[],
  episode: { ns?: string; subtitle?: string } = { ns: '0.4.0/1' },
): string {
  const programme = (from: number, title: string) =>
    [
      `  <programme start="${xmltvTime(from)}" stop="${xmltvTime(from + 6000)}" channel="one.test">`,
      `    <title lang="en">${title}</title>`,
      ...(episode.subtitle ? [`    <sub-title lang="en">${episode.subtitle}</sub-title>`] : []),
      ...(episode.ns ? [`    <episode-num system="xmltv_ns">${episode.ns}</episode-num>`] : []),
      '  </programme>',
    ].join('\n');
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<!DOCTYPE tv SYSTEM "xmltv.dtd">',
    '<tv generator-info-name="rerecord test">',
    '  <channel id="one.test">',
    '    <display-name>One</display-name>',
    '  </channel>',
    ...airings.map((a) => programme(a, 'Serial')),
    '</tv>',
    '',
  ].join('\n');
}

/**
 * The slot key of one airing of the guide's episode in window `serial`: the first airing's occurrence id is
 * the channel and episode, a later one's adds its start (the guide reader's rule for an episode aired twice).
 */
export function airingKey(scheduleId: string, first: number, at: number): string {
  const iso = new Date(at).toISOString().replace('.000', '');
  return `${scheduleId}:serial:one.test/0.4.0/1${at === first ? '' : `/${iso}`}`;
}

/** The create-channel requests the simulator logged for the slot `key` (its replacements' too). */
export function channelRequests(sim: Simulator, key: string) {
  return sim
    .requests()
    .filter(
      (r) =>
        r.route === 'create_channel' && (r.idempotency_key === key || r.idempotency_key?.startsWith(`${key}:restart:`)),
    );
}
