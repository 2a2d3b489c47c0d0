/**
 * User text quoted for an error message, cut to `max` characters: a message
 * names what it got without carrying a megabyte of it to the debug sidebar.
 * (A module of its own so that browser code can use it without the schemas.)
 */
export function quoteShort(text: string, max = 60): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
