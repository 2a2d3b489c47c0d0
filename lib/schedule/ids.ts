/**
 * A schedule id or window id: part of every slot key, and so of the
 * idempotency keys sent to the service. Its own module so that the editor
 * can check the setting with the very rule, without the YAML parser and zod.
 */
export const ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;
