/** A channel as the service returns it, with the id it is read and stopped by. */
export type IdentifiedChannel = Record<string, unknown> & { id: string };

/**
 * The one test of "a channel came back": an object whose id is text the
 * client can read and stop it by (not blank, as the client's path check
 * wants). Anything else is no channel, and a slot with nothing else
 * recorded nothing, with coordination or without.
 */
export function channelWithId(value: unknown): IdentifiedChannel | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const id = (value as { id?: unknown }).id;
  return typeof id === 'string' && id.trim() !== '' ? (value as IdentifiedChannel) : undefined;
}

/**
 * Whether two channels read alike (the same object, or the same JSON): create channel tells a schedule of
 * its channel, then routes the same channel back, and the second telling has nothing new to keep.
 */
export function sameChannel(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const id = channelWithId(a)?.id;
  return id !== undefined && id === channelWithId(b)?.id && JSON.stringify(a) === JSON.stringify(b);
}
