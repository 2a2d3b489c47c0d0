/**
 * The type guards the library, the simulator and the nodes share.
 *
 * `isPlainObject` is the one test of "a key-value object": not a list, and not
 * a Buffer, typed array, Date or Map (whose indexes or fields are no inputs).
 * It reads the object's tag rather than its prototype, so objects made in
 * another realm (a function node's sandbox) pass too.
 */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && Object.prototype.toString.call(value) === '[object Object]';
}

/** Text with something other than white space in it. */
export function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}
