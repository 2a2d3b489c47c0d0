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
