/**
 * What an operation answers. Errors stay abstract (status, message, field
 * messages) and are rendered in the route's error shape by the server, so
 * operations never need to know which of the description's shapes applies.
 */
export type Reply =
  | { status: number; json?: string; headers?: Record<string, string> }
  | { status: number; error: { message: string; fields?: Record<string, string> }; headers?: Record<string, string> };

export const ok = (status: number, body?: unknown): Reply =>
  body === undefined ? { status } : { status, json: JSON.stringify(body) };

export const fail = (status: number, message: string, fields?: Record<string, string>): Reply => ({
  status,
  error: { message, fields },
});

/** Keeps echoed input short: error messages quote what was sent, never a whole payload. */
export const quote = (value: string): string => JSON.stringify(value.length > 64 ? `${value.slice(0, 61)}...` : value);
