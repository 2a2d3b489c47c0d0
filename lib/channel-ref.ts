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
